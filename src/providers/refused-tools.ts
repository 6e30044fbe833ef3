/**
 * The tool a model server refused the schema of, read from its refusal: OpenAI names it ("Invalid
 * schema for function 'x': …", param `tools[3].function.parameters`), Anthropic gives its place
 * (`tools.3.custom.input_schema: JSON schema is invalid…`). A schema a server will not take fails
 * every call that offers the tool (an MCP server's, published broken), so such a tool is left out
 * of that server and model's later calls, logged; the others go on working.
 */
const NAMED = /Invalid schema for function '([^']+)'/;
const PLACED = [/tools\[(\d+)\]\.(?:function\.)?parameters/, /tools\.(\d+)\.custom\.input_schema/];

/** The name of the tool a refusal says has a schema the server does not take; `sent`, the names as sent. */
export function refusedToolName(detail: string, sent: readonly string[]): string | undefined {
  const named = NAMED.exec(detail)?.[1];
  if (named !== undefined && sent.includes(named)) return named;
  for (const pattern of PLACED) {
    const index = pattern.exec(detail)?.[1];
    if (index !== undefined && sent[Number(index)] !== undefined) return sent[Number(index)];
  }
  return undefined;
}

/** What a refusal teaches of the tools: `refusedTools` with the one it names added; undefined when it names none. */
export function withRefusedTool(known: readonly string[] | undefined, detail: string, sent: readonly string[]): { refusedTools: string[] } | undefined {
  const tool = refusedToolName(detail, sent);
  return tool === undefined ? undefined : { refusedTools: [...(known ?? []), tool] };
}

/** The tools a call offers, less those the server refused (logged, since the model cannot call them). */
export function withoutRefused<T extends { name: string }>(tools: T[], refused: readonly string[] | undefined): T[] {
  if (!refused?.length) return tools;
  const left = tools.filter((tool) => !refused.includes(tool.name));
  if (left.length < tools.length) console.warn('tools left out: the model server refused their schemas', refused);
  return left;
}
