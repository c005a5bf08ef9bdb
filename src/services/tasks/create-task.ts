// The create-task use case shared by POST /generate, POST /v1/videos and POST /v1/images/generations:
// the checks of DESIGN.md §4 from model_name on, then ONE transaction with the task (pending), its
// hold (a guarded write: 402 when the balance does not cover it) and whatever the caller adds, such
// as the idempotent answer. Nothing is written when any check fails.
import type { CatalogModel } from '../../domain/catalog/model.js';
import { isInternalModelId } from '../../domain/catalog/model.js';
import { AppError } from '../../domain/errors.js';
import { uuidV7 } from '../../domain/ids.js';
import { modelAllowed } from '../../domain/keys/restrictions.js';
import type { ParamsValidator } from '../../domain/tasks/params.js';
import { quoteTask } from '../../domain/tasks/pricing.js';
import type { TaskProviderRegistry } from '../../providers/task-registry.js';
import type { NewTask, TaskRow } from '../../storage/repositories/tasks.js';
import type { Storage } from '../../storage/storage.js';
import type { AuthenticatedKey } from '../auth.js';
import type { CatalogService } from '../catalog.js';
import type { Clock } from '../clock.js';
import { holdRefusal } from '../hold-refusal.js';
import type { Metrics } from '../metrics.js';
import { assertWebhookTargetAllowed } from '../webhooks/target-policy.js';
import type { TaskEvents } from './events.js';

export interface CreateTaskInput {
  key: AuthenticatedKey;
  /** The `params` object of the request (model_name included). */
  params: unknown;
  /**
   * Runs first inside the creating transaction, with the task about to be written: the place to
   * store the idempotent answer so that it commits (or rolls back) together with the task and hold.
   */
  inTransaction?: (tx: Storage, task: TaskRow) => Promise<void>;
}

/** What the runner needs besides params, kept in provider_state until the first submit. */
export interface InitialProviderState {
  upstream_model: string;
}

export interface CreateTaskDeps {
  storage: Storage;
  clock: Clock;
  catalog: CatalogService;
  validator: ParamsValidator;
  providers: TaskProviderRegistry;
  events: TaskEvents;
  webhookAllowPrivate: boolean;
  metrics?: Metrics;
}

export async function resolveGenerationModel(
  catalog: CatalogService,
  key: AuthenticatedKey,
  modelName: unknown,
): Promise<CatalogModel> {
  if (modelName === undefined || modelName === null || modelName === '')
    throw new AppError('model_name_required', undefined, 'model_name');
  if (typeof modelName !== 'string')
    throw new AppError('invalid_parameter', 'model_name must be a string', 'model_name');
  const model = isInternalModelId(modelName) ? undefined : await catalog.get(modelName);
  if (!model?.active)
    throw new AppError('model_not_found', `Model not found or inactive: ${modelName}`, 'model_name');
  if (!modelAllowed(model.id, key.allowedModels))
    throw new AppError('model_not_allowed', `This key may not use ${model.id}`, 'model_name');
  if (model.kind === 'text') {
    throw new AppError(
      'model_kind_not_supported',
      `${model.id} is a text model: use POST /v1/chat/completions`,
      'model_name',
    );
  }
  if (model.priceMicro === null)
    throw new AppError('model_has_no_price', `No price is set for ${model.id}`, 'model_name');
  return model;
}

export async function createTask(deps: CreateTaskDeps, input: CreateTaskInput): Promise<TaskRow> {
  const raw = input.params;
  if (raw !== undefined && (typeof raw !== 'object' || raw === null || Array.isArray(raw))) {
    throw new AppError('invalid_parameter', 'params must be an object', 'params');
  }
  const given = (raw ?? {}) as Record<string, unknown>;
  const model = await resolveGenerationModel(deps.catalog, input.key, given.model_name);
  const params = deps.validator.validate(model, given);
  const webhookUrl = params.webhook_url;
  if (webhookUrl !== undefined && typeof webhookUrl !== 'string')
    throw new AppError('invalid_parameter', 'webhook_url must be a string', 'webhook_url');
  if (webhookUrl !== undefined) await assertWebhookTargetAllowed(webhookUrl, deps.webhookAllowPrivate);

  const variants = new Map<string, CatalogModel>();
  for (const variant of model.billing?.variants ?? []) {
    const entry = await deps.catalog.get(variant.model);
    if (entry) variants.set(entry.id, entry);
  }
  const quote = quoteTask(model, params, input.key.coefficientPpm, (id) => variants.get(id));
  const route = deps.providers.resolve(model);

  const now = deps.clock.now();
  const task: TaskRow = {
    id: uuidV7(),
    account_id: input.key.accountId,
    key_id: input.key.keyId,
    model_id: model.id,
    billing_model_id: quote.billingModel.id,
    kind: model.kind,
    status: 'pending',
    params: JSON.stringify(params),
    hold_amount: quote.holdAmount,
    pricing: JSON.stringify(quote.pricing),
    cost: null,
    result: null,
    error: null,
    webhook_url: webhookUrl ?? null,
    provider: route.providerName,
    provider_job_id: null,
    provider_state: JSON.stringify({ upstream_model: route.upstreamModel } satisfies InitialProviderState),
    attempts: 0,
    requeues: 0,
    run_at: now,
    lease_owner: null,
    lease_expires_at: null,
    processing_ms: 0,
    processing_started_at: null,
    created_at: now,
    updated_at: now,
    finished_at: null,
  };
  const { inTransaction } = input;
  if (inTransaction) {
    await deps.storage.transaction(async (tx) => {
      // First, so a concurrent duplicate stops at the idempotency key before touching the balance.
      await inTransaction(tx, task);
      if (!(await tx.insertTaskWithHold(task satisfies NewTask)))
        throw await holdRefusal(tx.keys, task.key_id, task.hold_amount, now);
    });
  } else if (!(await deps.storage.insertTaskWithHold(task))) {
    // The task and its hold are written together or not at all (batched with the tasks created
    // alongside on PostgreSQL, one commit and one lock of the key's row for the lot). Refused by
    // the balance or by the key's spend cap: the refusal says which.
    throw await holdRefusal(deps.storage.keys, task.key_id, task.hold_amount, now);
  }
  deps.metrics?.taskCreated(task);
  deps.events.created();
  return task;
}
