// GET /tasks/{id} answers of final tasks, kept serialized. A final task never changes (the state
// machine has no way out of completed or failed), so its answer can be reused as is, in this
// process and in every other one; clients that keep polling a finished task (or fetch it again for
// its result) are then answered without a database read or a serialization. Pending tasks are
// always read from the database.
import { isFinal, type TaskStatus } from '../../domain/tasks/states.js';

interface Answer {
  accountId: number;
  body: string;
}

export class FinalTaskAnswers {
  private readonly answers = new Map<string, Answer>();

  constructor(private readonly maxEntries = 20_000) {}

  /** The serialized answer, only for the task's own account. */
  get(accountId: number, taskId: string): string | undefined {
    const answer = this.answers.get(taskId);
    return answer && answer.accountId === accountId ? answer.body : undefined;
  }

  remember(task: { id: string; account_id: number; status: TaskStatus }, body: string): void {
    if (!isFinal(task.status)) return;
    if (this.answers.size >= this.maxEntries) {
      // Oldest first: a Map iterates in insertion order.
      const oldest = this.answers.keys().next().value;
      if (oldest !== undefined) this.answers.delete(oldest);
    }
    this.answers.set(task.id, { accountId: task.account_id, body });
  }
}
