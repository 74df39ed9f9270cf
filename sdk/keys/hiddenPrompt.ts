/** Streams a hidden prompt reads from and writes to: a terminal's stdin, and stderr (so stdout stays clean for --json). */
export type PromptStreams = Readonly<{ input: NodeJS.ReadStream; output: NodeJS.WritableStream }>;

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
  output.write(question);
  return new Promise((resolve, reject) => {
    let typed = "";
    const wasRaw = input.isRaw;
    const finish = (error: Error | undefined) => {
      input.off("data", onData);
      input.setRawMode(wasRaw);
      input.pause();
      output.write("\n");
      if (error === undefined) resolve(typed);
      else reject(error);
    };
    const onData = (chunk: Buffer | string) => {
      for (const character of chunk.toString("utf8")) {
        if (character === "\r" || character === "\n") return finish(undefined);
        if (character === "\u0003" || (character === "\u0004" && typed === "")) return finish(new Error("cancelled at the prompt"));
        if (character === "\u007f" || character === "\b") typed = [...typed].slice(0, -1).join("");
        else if (character >= " ") typed += character;
      }
    };
    input.setRawMode(true);
    input.resume();
    input.on("data", onData);
  });
}
