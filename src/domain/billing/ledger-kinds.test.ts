import { describe, expect, it } from 'vitest';
import { balanceEffect, heldEffect, isLedgerKind, LEDGER_KIND_SPECS, LEDGER_KINDS } from './ledger-kinds.js';

describe('ledger kinds', () => {
  it('declares each kind once with its effects and a label', () => {
    expect(LEDGER_KINDS).toEqual([
      'topup',
      'hold',
      'capture',
      'release',
      'adjust',
      'transfer',
      'redeem',
      'refund',
      'refund_reversal',
    ]);
    for (const kind of LEDGER_KINDS) expect(LEDGER_KIND_SPECS[kind].label.length).toBeGreaterThan(0);
  });

  it('gives each movement its sign on balance and held', () => {
    expect([balanceEffect('hold', 5), heldEffect('hold', 5)]).toEqual([-5, 5]);
    expect([balanceEffect('capture', 5), heldEffect('capture', 5)]).toEqual([0, -5]);
    expect([balanceEffect('release', 5), heldEffect('release', 5)]).toEqual([5, -5]);
    expect(balanceEffect('refund', 5)).toBe(-5);
    expect(balanceEffect('refund_reversal', 5)).toBe(5);
    expect(balanceEffect('redeem', 5)).toBe(5);
    expect(balanceEffect('transfer', -5)).toBe(-5);
  });

  it('knows its own kinds only', () => {
    expect(isLedgerKind('refund')).toBe(true);
    expect(isLedgerKind('toString')).toBe(false);
    expect(isLedgerKind('bogus')).toBe(false);
  });
});
