// The operator of a console request, as the layout and the pages read it.
export interface ConsoleSession {
  /** The session's CSRF token: put it in every form with csrfField(). */
  csrfToken: string;
  maintenance: boolean;
}
