/** A result download answered with a status other than 200; 403/404/410 mean the file is gone or expired. */
export class DownloadError extends Error {
  readonly name = 'DownloadError';
  constructor(readonly status: number) {
    super(`result download answered ${status}`);
  }

  get expired(): boolean {
    return this.status === 403 || this.status === 404 || this.status === 410;
  }
}
