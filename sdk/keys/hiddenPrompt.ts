/** Streams a hidden prompt reads from and writes to: a terminal's stdin, and stderr (so stdout stays clean for --json). */
export type PromptStreams = Readonly<{ input: NodeJS.ReadStream; output: NodeJS.WritableStream }>;

/** What was typed ahead past the end of a line (two answers in one chunk), kept for the next prompt on that stream. */
const typedAhead = new WeakMap<NodeJS.ReadStream, string>();

/**
 * Asks `question` and reads one line from a terminal without echoing it (raw mode: backspace edits,
 * Ctrl-C or Ctrl-D on an empty line cancel). Refuses when `input` is not a terminal: a secret piped
 * in would sit in shell history or another process's memory; use a password file instead.
 */
export function promptHidden(question: string, streams: PromptStreams = { input: process.stdin, output: process.stderr }): Promise<string> {
  const { input, output } = streams;
  if (input.isTTY !== true) {
    return Promise.reject(new Error(`cannot ask "${question.trim()}" without a terminal: pass --password-file <file> (or run in a terminal)`));
  }
  return new Promise((resolve, reject) => {
    let typed = "";
    const wasRaw = input.isRaw;
    let settled = false;
    const finish = (error: Error | undefined) => {
      settled = true;
      input.off("data", onData);
      input.setRawMode(wasRaw);
      input.pause();
      output.write("\n");
      if (error === undefined) resolve(typed);
      else reject(error);
    };
    const onData = (chunk: Buffer | string) => {
      const characters = [...chunk.toString("utf8")];
      for (const [index, character] of characters.entries()) {
        if (character === "\r" || character === "\n") {
          const rest = characters.slice(index + 1).join("").replace(/^\n/, "");
          if (rest === "") typedAhead.delete(input);
          else typedAhead.set(input, rest);
          return finish(undefined);
        }
        if (character === "\u0003" || (character === "\u0004" && typed === "")) return finish(new Error("cancelled at the prompt"));
        if (character === "\u007f" || character === "\b") typed = [...typed].slice(0, -1).join("");
        else if (character >= " ") typed += character;
      }
    };
    // Echo off before the question shows, so an answer typed the moment it appears is not echoed.
    input.setRawMode(true);
    output.write(question);
    const pending = typedAhead.get(input);
    typedAhead.delete(input);
    if (pending !== undefined) {
      onData(pending);
      if (settled) return;
    }
    input.resume();
    input.on("data", onData);
  });
}
