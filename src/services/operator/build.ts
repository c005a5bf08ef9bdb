// The operator's services (the console and the operator-only admin API), built once by the
// composition root.
import type { Config } from '../../config.js';
import type { Storage } from '../../storage/storage.js';
import type { Clock } from '../clock.js';
import { MarginReportService } from './margin-report.js';

export interface OperatorServices {
  margin: MarginReportService;
}

export function buildOperatorServices(_config: Config, storage: Storage, clock: Clock): OperatorServices {
  return { margin: new MarginReportService(storage, clock) };
}
