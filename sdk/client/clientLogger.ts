/** Where the client reports what it does; `console` fits, and every method is optional. */
export type ClientLogger = {
  debug?(message: string): void;
  info?(message: string): void;
  warn?(message: string): void;
};

export const silentLogger: ClientLogger = {};
