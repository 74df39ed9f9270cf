import { readFileSync } from "node:fs";

/** The text of every `/** … *\/` comment of a source file, in order, with the leading `*`s and line breaks folded into one line. */
export function docCommentsOf(file: string): string[] {
  const source = readFileSync(file, "utf8");
  return [...source.matchAll(/\/\*\*([\s\S]*?)\*\//g)].map((match) =>
    match[1]!
      .split("\n")
      .map((line) => line.replace(/^\s*\*\s?/, "").trim())
      .filter((line) => line !== "")
      .join(" "),
  );
}

/**
 * The last doc comment that names `name` in backticks (`` `NAME` `` or `` `NAME=value` ``), or undefined: the
 * config modules document each variable on the field of their config type, which follows the helpers.
 */
export function docCommentNaming(comments: readonly string[], name: string): string | undefined {
  return [...comments].reverse().find((comment) => comment.includes(`\`${name}\``) || comment.includes(`\`${name}=`));
}
