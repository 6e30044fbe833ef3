/**
 * The names OpenAI and Anthropic take for a function: 1 to 64 letters, digits, "_" and "-". Both
 * hold a tool call in the history to it as well as a tool offered: OpenAI refuses a request whose
 * earlier call bears any other name ("string does not match pattern").
 */
export const FUNCTION_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * A name as the providers take it: itself when it is one, else its other characters as "_", cut
 * at 64 ("_" for none). A model can call a tool by any name (one it invents, `multi_tool_use.parallel`),
 * and a client's history can hold any; the history keeps the name as it came.
 */
export function functionName(name: string): string {
  return FUNCTION_NAME.test(name) ? name : name.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64) || '_';
}
