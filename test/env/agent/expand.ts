// Kubernetes `$(VAR)` expansion, as in command, args and env values: `$(NAME)` becomes the variable's
// value when it is defined and stays as written otherwise; `$$` is an escaped `$`.

export function expandVariables(input: string, lookup: (name: string) => string | undefined): string {
  let out = '';
  for (let i = 0; i < input.length; i++) {
    const char = input[i];
    if (char !== '$' || i + 1 >= input.length) {
      out += char;
      continue;
    }
    const next = input[i + 1];
    if (next === '$') {
      out += '$';
      i++;
    } else if (next === '(') {
      const close = input.indexOf(')', i + 2);
      if (close < 0) {
        out += input.slice(i);
        break;
      }
      const name = input.slice(i + 2, close);
      const value = lookup(name);
      out += value ?? `$(${name})`;
      i = close;
    } else {
      out += char;
    }
  }
  return out;
}
