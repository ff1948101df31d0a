// Quoting for a POSIX shell (sh, bash, zsh, dash): inside single quotes every byte is literal,
// so the only character to handle is the single quote itself, written as '\'' (close, escaped
// quote, reopen). Words made only of characters no shell treats specially stay bare.
const SAFE_WORD = /^[A-Za-z0-9_@%+=:,./-]+$/;

export function shellQuote(word: string): string {
  if (SAFE_WORD.test(word)) return word;
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/** One command, its arguments quoted, one option (with its value) per continued line. */
export function shellCommand(lines: string[][]): string {
  return lines.map((words) => words.map(shellQuote).join(' ')).join(' \\\n  ');
}
