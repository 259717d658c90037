// Messages of CEL rules written as text with CEL parts: `celConcat(\`size: ${cel('self.size')} is too big\`)`
// becomes `"size: " + self.size + " is too big"`, so a messageExpression reads like the message it makes.

/** A CEL expression in a text: the text between two NULs is CEL, the rest literal (see `celConcat`). */
export const cel = (expression: string): string => `\0${expression}\0`;

/** Text with `cel(...)` parts as a CEL string concatenation. */
export function celConcat(text: string): string {
  const literal = (part: string) => {
    if (/["\\]/.test(part)) throw new Error(`a CEL message literal cannot hold " or \\, got ${part}`);
    return part && `"${part}"`;
  };
  return text
    .split('\0')
    .map((part, i) => (i % 2 === 1 ? part : literal(part)))
    .filter((part) => part !== '')
    .join(' + ');
}
