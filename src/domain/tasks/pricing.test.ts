import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyCoefficient, tokenCost } from '../billing/money.js';
import type { CatalogModel } from '../catalog/model.js';
import { AppError } from '../errors.js';
import { actualCost, quoteTask, selectBillingModel } from './pricing.js';

const RUB = 1_000_000;

function model(overrides: Partial<CatalogModel>): CatalogModel {
  return {
    id: 'm',
    name: 'M',
    provider: 'P',
    kind: 'video',
    unit: 'shot',
    priceMicro: 45 * RUB,
    priceOutputMicro: null,
    active: true,
    visible: true,
    vision: false,
    route: null,
    paramsSchema: null,
    billing: null,
    updatedAt: 1,
    ...overrides,
  };
}

const none = () => undefined;
const tokenVideo = model({
  id: 'seedance-1-pro',
  unit: 'mtok',
  priceMicro: 220 * RUB,
  billing: { token_video: { tokens_per_second: { '480p': 9720, '720p': 21600, '1080p': 48600 } } },
});

describe('quoteTask', () => {
  it('holds the price of a shot, whatever the duration', () => {
    const quote = quoteTask(model({}), { duration: 15 }, 1_000_000, none);
    expect(quote.holdAmount).toBe(45 * RUB);
    expect(quote.billingModel.id).toBe('m');
    expect(quote.pricing).toEqual({ unit: 'shot', price_micro: 45 * RUB, coefficient_ppm: 1_000_000 });
  });

  it('holds price × duration for per-second models', () => {
    expect(
      quoteTask(model({ unit: 'sec', priceMicro: 6 * RUB }), { duration: 10 }, 1_000_000, none).holdAmount,
    ).toBe(60 * RUB);
  });

  it('needs a duration for per-second models', () => {
    expect(() => quoteTask(model({ unit: 'sec' }), {}, 1_000_000, none)).toThrow(
      expect.objectContaining({ code: 'missing_parameter' }),
    );
  });

  it('holds the worst case of token-billed video: tokens/s at the resolution × duration × price per 1M', () => {
    const quote = quoteTask(tokenVideo, { duration: 5, resolution: '1080p' }, 1_000_000, none);
    expect(quote.pricing.max_tokens).toBe(243_000);
    expect(quote.holdAmount).toBe(53_460_000); // 243 000 tokens × 220 RUB / 1M = 53.46 RUB
  });

  it('uses the largest resolution when none is given', () => {
    expect(quoteTask(tokenVideo, { duration: 2 }, 1_000_000, none).pricing.max_tokens).toBe(97_200);
  });

  it('applies the account coefficient, rounding up to the micro-ruble', () => {
    expect(quoteTask(model({}), {}, 1_250_000, none).holdAmount).toBe(56_250_000);
    expect(quoteTask(model({ priceMicro: 1 }), {}, 1_500_000, none).holdAmount).toBe(2);
  });

  it('prices an internal variant selected by the params and records it', () => {
    const veo = model({
      id: 'veo-3-fast',
      unit: 'sec',
      priceMicro: 22 * RUB,
      billing: { variants: [{ when: { generate_audio: true }, model: 'veo-3-fast:audio' }] },
    });
    const audio = model({ id: 'veo-3-fast:audio', unit: 'sec', priceMicro: 36 * RUB });
    const lookup = (id: string) => (id === audio.id ? audio : undefined);
    const withAudio = quoteTask(veo, { duration: 8, generate_audio: true }, 1_000_000, lookup);
    expect(withAudio.billingModel.id).toBe('veo-3-fast:audio');
    expect(withAudio.holdAmount).toBe(288 * RUB);
    const silent = quoteTask(veo, { duration: 8, generate_audio: false }, 1_000_000, lookup);
    expect(silent.billingModel.id).toBe('veo-3-fast');
    expect(silent.holdAmount).toBe(176 * RUB);
  });

  it('refuses a variant that is missing or unpriced rather than charging less', () => {
    const veo = model({ billing: { variants: [{ when: { hd: true }, model: 'm:hd' }] } });
    expect(() => selectBillingModel(veo, { hd: true }, none)).toThrow(AppError);
    expect(() =>
      selectBillingModel(veo, { hd: true }, () => model({ id: 'm:hd', priceMicro: null })),
    ).toThrow(expect.objectContaining({ code: 'model_has_no_price' }));
  });

  it('refuses a model without a price', () => {
    expect(() => quoteTask(model({ priceMicro: null }), {}, 1_000_000, none)).toThrow(
      expect.objectContaining({ code: 'model_has_no_price' }),
    );
  });

  it('always equals applyCoefficient(base) and is an integer (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 10_000 * RUB }),
        fc.integer({ min: 1, max: 60 }),
        fc.integer({ min: 1, max: 10_000_000 }),
        fc.constantFrom<'shot' | 'sec'>('shot', 'sec'),
        (price, duration, coefficient, unit) => {
          const hold = quoteTask(
            model({ unit, priceMicro: price }),
            { duration },
            coefficient,
            none,
          ).holdAmount;
          const base = unit === 'shot' ? price : price * duration;
          expect(Number.isSafeInteger(hold)).toBe(true);
          expect(hold).toBe(applyCoefficient(base, coefficient));
          // Never below the exact product: rounding is always up.
          expect(BigInt(hold) * 1_000_000n).toBeGreaterThanOrEqual(BigInt(base) * BigInt(coefficient));
        },
      ),
    );
  });
});

describe('actualCost', () => {
  const pricing = {
    unit: 'mtok' as const,
    price_micro: 220 * RUB,
    coefficient_ppm: 1_000_000,
    max_tokens: 243_000,
  };

  it('captures the reported tokens at the frozen price, never above the hold (property)', () => {
    const hold = 53_460_000;
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 10_000_000 }),
        fc.integer({ min: 1, max: 5_000_000 }),
        (tokens, coefficient) => {
          const withCoefficient = { ...pricing, coefficient_ppm: coefficient };
          const cost = actualCost(withCoefficient, hold, { tokens });
          expect(cost).toBe(Math.min(hold, applyCoefficient(tokenCost(220 * RUB, tokens), coefficient)));
          expect(cost).toBeLessThanOrEqual(hold);
          expect(cost).toBeGreaterThanOrEqual(0);
        },
      ),
    );
  });

  it('charges the worst case when the provider reports no usage', () => {
    expect(actualCost(pricing, 53_460_000, undefined)).toBe(53_460_000);
  });

  it('captures the hold of fixed-price tasks', () => {
    expect(
      actualCost({ unit: 'shot', price_micro: 45 * RUB, coefficient_ppm: 1_000_000 }, 45 * RUB, {
        tokens: 1,
      }),
    ).toBe(45 * RUB);
  });
});
