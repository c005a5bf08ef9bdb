// The signed-in owner of a panel request, as the layout and the pages read it.
export interface PanelSession {
  accountId: number;
  messagingId: number;
  /** The session's CSRF token: put it in every form with csrfField(). */
  csrfToken: string;
  /** Maintenance mode is on: the layout shows a banner. */
  maintenance: boolean;
}
