// The console's audit trail: every change an operator makes is one audit row, written the same way
// by each console service.
import type { Storage } from '../../storage/storage.js';
import type { Clock } from '../clock.js';

/** Who made a change: the console's operator and the address it came from. */
export interface OperatorActor {
  actor: 'operator';
  ip: string;
}

export function recordOperatorAction(
  deps: { storage: Storage; clock: Clock },
  by: OperatorActor,
  action: string,
  target: string,
  before?: unknown,
  after?: unknown,
) {
  return deps.storage.operator.appendAudit({ ...by, action, target, before, after, now: deps.clock.now() });
}
