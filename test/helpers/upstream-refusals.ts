/**
 * What the stand-in upstream (`upstream-server.ts`) refuses, in each real server's words and shape:
 * what the Messages API and Chat Completions refuse in any request (`requestRefusal`), and what each
 * scripted server refuses as its real counterpart does (`scriptedRefusal`).
 */
import { fixtureNames, readFixture, recordedModel } from './recordings.ts';
import { LONE_SURROGATE_ESCAPE } from './strict-json.ts';

export type ChatBody = { model: string; messages: { role: string; content: unknown }[]; tools?: unknown[] };

/** Why the API refuses a request before any model sees it (a 400 `invalid_request_error`), or undefined. */
export function requestRefusal(text: string, body: ChatBody, anthropic: boolean): string | undefined {
  return (
    imageRefusal(text, anthropic) ??
    (anthropic ? (anthropicPairing(body) ?? anthropicRefusal(text, body)) : (openaiPairing(body) ?? openaiRefusal(body) ?? deepseekRefusal(body)))
  );
}

type ScriptBody = ChatBody & { stream_options?: unknown; max_tokens?: unknown; temperature?: unknown };

/**
 * The error body a scripted server answers 400 with, in its own words and shape, or undefined: each
 * refuses what its real counterpart refuses (the model list opens `upstream-server.ts`).
 */
export function scriptedRefusal(name: string, body: ScriptBody): unknown {
  const error = (message: string, type = 'BadRequestError') => ({ object: 'error', message, type, param: null, code: 400 });
  const calls = body.messages.flatMap((message) => (message as { tool_calls?: { id: string; extra_content?: { google?: { thought_signature?: unknown } } }[] }).tool_calls ?? []);
  switch (name) {
    case 'mistral': {
      const silent = body.messages.some((message) => message.role === 'assistant' && !message.content && !(message as { tool_calls?: unknown[] }).tool_calls?.length);
      if (silent) return error('Assistant message must have either content or tool_calls, but not none.', 'invalid_request_message_order');
      // Tool call ids of nine letters and digits, in calls and results alike.
      const results = body.messages.flatMap((message) => {
        const result = (message as { tool_call_id?: string }).tool_call_id;
        return result === undefined ? [] : [result];
      });
      const bad = [...calls.map((call) => call.id), ...results].find((id) => !/^[a-zA-Z0-9]{9}$/.test(id));
      return bad === undefined ? undefined : error(`Tool call id was ${bad} but must be a-z, A-Z, 0-9, with a length of 9.`, 'invalid_function_call');
    }
    case 'gemini': {
      // Every earlier tool call carries a thought signature.
      const unsigned = calls.findIndex((call) => typeof call.extra_content?.google?.thought_signature !== 'string');
      const message = `Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call \`default_api:calculator\` , position ${unsigned}. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.`;
      return unsigned < 0 ? undefined : [{ error: { code: 400, message, status: 'INVALID_ARGUMENT' } }];
    }
    case 'strict':
      return alternates(body.messages) ? undefined : error('After the optional system message, conversation roles must alternate user/assistant/user/assistant/...');
    case 'notools':
      return body.tools?.length ? error('"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set') : undefined;
    case 'openrouter-notools':
      return body.tools?.length ? { error: { message: 'No endpoints found that support tool use. To learn more about provider routing, visit: https://openrouter.ai/docs/provider-routing', code: 404 } } : undefined;
    case 'ollama-notools':
      return body.tools?.length ? { error: { message: `registry.ollama.ai/library/${body.model.slice('script/'.length)} does not support tools`, type: 'api_error', param: null, code: null } } : undefined;
    case 'gateway': {
      // Gemini behind a gateway that translates to its API: each schema keyword it does not know, by name.
      const unknown = (body.tools as { function: { parameters: unknown } }[] | undefined ?? []).flatMap((tool, index) => unknownKeywords(tool.function.parameters, `tools[0].function_declarations[${index}].parameters`));
      const message = unknown.map(([key, at]) => `Invalid JSON payload received. Unknown name "${key}" at '${at}': Cannot find field.`).join('\n');
      return unknown.length === 0 ? undefined : { error: { code: 400, message, status: 'INVALID_ARGUMENT' } };
    }
    case 'azure':
      return body.stream_options === undefined
        ? undefined
        : { error: { message: 'Unrecognized request argument supplied: stream_options. Please contact us through an Azure support request at: https://go.microsoft.com/fwlink/?linkid=2213926 for further questions.', type: 'invalid_request_error', param: '', code: null } };
    case 'reasoning':
      if (body.max_tokens !== undefined) {
        return { error: { message: "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.", type: 'invalid_request_error', param: 'max_tokens', code: 'unsupported_parameter' } };
      }
      if (body.temperature !== undefined && body.temperature !== 1) {
        return { error: { message: `Unsupported value: 'temperature' does not support ${String(body.temperature)} with this model. Only the default (1) value is supported.`, type: 'invalid_request_error', param: 'temperature', code: 'unsupported_value' } };
      }
      return undefined;
    default:
      return undefined;
  }
}

/** A value in a schema's `properties` that is no schema (neither an object nor a boolean), as broken MCP schemas have; at the top. */
function propertyNotSchema(schema: unknown): unknown {
  const properties = (schema as { properties?: unknown } | undefined)?.properties;
  if (typeof properties !== 'object' || properties === null) return undefined;
  return Object.values(properties).find((value) => typeof value !== 'boolean' && (typeof value !== 'object' || value === null));
}

/** Where in a schema an array has no `items` (the path OpenAI names), if anywhere. */
function arrayWithoutItems(schema: unknown, at: string[]): string[] | undefined {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return undefined;
  const record = schema as Record<string, unknown>;
  if (record.type === 'array' && !('items' in record)) return at;
  for (const [key, value] of Object.entries(record)) {
    if (key === 'enum' || key === 'const' || key === 'default') continue;
    const found = key === 'properties' && typeof value === 'object' && value !== null
      ? Object.entries(value).map(([name, property]) => arrayWithoutItems(property, [...at, 'properties', name])).find(Boolean)
      : arrayWithoutItems(value, [...at, key]);
    if (found) return found;
  }
  return undefined;
}

/** Where a schema has keywords Gemini's API does not take (`additionalProperties`, `$schema`): each with its path. */
function unknownKeywords(schema: unknown, at: string): [string, string][] {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return [];
  return Object.entries(schema).flatMap(([key, value]): [string, string][] => {
    if (key === 'additionalProperties' || key === '$schema') return [[key, at]];
    if (key === 'properties' && typeof value === 'object' && value !== null) return Object.entries(value).flatMap(([name, property]) => unknownKeywords(property, `${at}.properties[${JSON.stringify(name)}]`));
    return unknownKeywords(value, `${at}.${key}`);
  });
}

/**
 * As Mistral's chat template reads roles: one system message first at most, then user and assistant
 * in turn, where tool results and assistant messages with tool calls are not read.
 */
function alternates(messages: ChatBody['messages']): boolean {
  const roles = messages
    .filter((message, index) => !(index === 0 && message.role === 'system') && message.role !== 'tool' && !('tool_calls' in message))
    .map((message) => message.role);
  return roles.every((role, index) => role === (index % 2 === 0 ? 'user' : 'assistant'));
}

/**
 * What the APIs say of a request with an image they cannot use: linked from a URL they cannot
 * download (here, any with `/expired/` in it), or inline bytes that are no image they read.
 */
function imageRefusal(text: string, anthropic: boolean): string | undefined {
  if (/"url":"https?:\/\/[^"]*\/expired\//.test(text)) {
    return anthropic ? 'Unable to download the file. Please verify the URL and try again.' : 'Error while downloading the image: invalid_image_url.';
  }
  const inline = [...text.matchAll(anthropic ? /"type":"base64","media_type":"[^"]*","data":"([^"]*)"/g : /"url":"data:[^;"]*;base64,([^"]*)"/g)];
  if (inline.some(([, data]) => !isImage(Buffer.from(data ?? '', 'base64')))) {
    return anthropic ? 'Could not process image' : 'You uploaded an unsupported image. Please make sure your image is valid.';
  }
  return undefined;
}

/** Whether bytes begin as a PNG, JPEG, GIF or WebP file does. */
function isImage(bytes: Buffer): boolean {
  const starts = (hex: string, at = 0) => bytes.subarray(at, at + hex.length / 2).toString('hex') === hex;
  return starts('89504e47') || starts('ffd8ff') || starts('47494638') || (starts('52494646') && starts('57454250', 8));
}

type PairedMessage = { role: string; content?: unknown; tool_calls?: { id?: unknown }[]; tool_call_id?: unknown };

/**
 * What Chat Completions says of tool calls and results that do not pair: each assistant message
 * with tool calls must be followed by a tool message for each of its calls, and a tool message must
 * answer a call of the assistant message before its run of tool messages.
 */
function openaiPairing(body: ChatBody): string | undefined {
  const unanswered = (ids: string[]) =>
    `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${ids.join(', ')}`;
  let open: string[] = [];
  for (const message of body.messages as PairedMessage[]) {
    if (message.role === 'tool') {
      if (!open.includes(String(message.tool_call_id))) return "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.";
      open = open.filter((id) => id !== message.tool_call_id);
      continue;
    }
    if (open.length > 0) return unanswered(open);
    open = message.role === 'assistant' ? (message.tool_calls ?? []).map((call) => String(call.id)) : [];
  }
  return open.length > 0 ? unanswered(open) : undefined;
}

/**
 * What the Messages API says of tool uses and results that do not pair: each assistant message's
 * `tool_use` blocks must be answered by `tool_result` blocks at the start of the next message, and a
 * `tool_result` must answer a `tool_use` of the message before it.
 */
function anthropicPairing(body: ChatBody): string | undefined {
  const blocks = (message: ChatBody['messages'][number] | undefined) => (Array.isArray(message?.content) ? (message.content as (AnthropicBlock & { id?: string; tool_use_id?: string })[]) : []);
  let before: (string | undefined)[] = []; // the tool uses of the message before
  for (const [index, message] of body.messages.entries()) {
    const uses = message.role === 'assistant' ? blocks(message).flatMap((block) => (block.type === 'tool_use' ? [block.id] : [])) : [];
    for (const [at, block] of blocks(message).entries()) {
      if (block.type === 'tool_result' && !before.includes(block.tool_use_id)) {
        return `messages.${index}.content.${at}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${block.tool_use_id}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`;
      }
    }
    before = uses;
    if (uses.length === 0) continue;
    const next = body.messages[index + 1];
    const leading: string[] = [];
    for (const block of next?.role === 'user' ? blocks(next) : []) {
      if (block.type !== 'tool_result') break;
      leading.push(String(block.tool_use_id));
    }
    const missing = uses.filter((id) => !leading.includes(String(id)));
    if (missing.length > 0) {
      return `messages.${index}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(', ')}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`;
    }
  }
  return undefined;
}

/**
 * What Chat Completions says of an output limit past the model's, of more tools, a longer tool
 * description or a tool schema than it takes, of a tool call id over its 40 characters (in a call or
 * in a result), and of an earlier call whose function's name is not in its alphabet.
 */
function openaiRefusal(body: ChatBody): string | undefined {
  // GPT-4o's output limit, as OpenAI names it.
  const output = (body as { max_tokens?: number }).max_tokens ?? 0;
  if (output > 16384) return `max_tokens is too large: ${output}. This model supports at most 16384 completion tokens, whereas you provided ${output}.`;
  const tools = body.tools?.length ?? 0;
  if (tools > 128) return `Invalid 'tools': array too long. Expected an array with maximum length 128, but got an array with length ${tools} instead.`;
  for (const tool of (body.tools as { function: { name: string; parameters: Record<string, unknown> } }[] | undefined) ?? []) {
    if (!('properties' in tool.function.parameters)) return `Invalid schema for function '${tool.function.name}': In context=(), object schema missing properties.`;
    const notSchema = propertyNotSchema(tool.function.parameters);
    if (notSchema !== undefined) return `Invalid schema for function '${tool.function.name}': ${JSON.stringify(notSchema).replaceAll('"', "'")} is not of type 'object', 'boolean'.`;
    const at = arrayWithoutItems(tool.function.parameters, []);
    if (at) return `Invalid schema for function '${tool.function.name}': In context=(${at.map((part) => `'${part}'`).join(', ')}), array schema missing items.`;
  }
  const described = (body.tools as { function?: { description?: string } }[] | undefined)?.findIndex((tool) => (tool.function?.description?.length ?? 0) > 1024) ?? -1;
  if (described >= 0) {
    const length = (body.tools as { function: { description: string } }[])[described]!.function.description.length;
    return `Invalid 'tools[${described}].function.description': string too long. Expected a string with maximum length 1024, but got a string with length ${length} instead.`;
  }
  const tooLong = (field: string, id: unknown) =>
    typeof id === 'string' && id.length > 40 ? `Invalid '${field}': string too long. Expected a string with maximum length 40, but got a string with length ${id.length} instead.` : undefined;
  const badName = (field: string, name: unknown) =>
    typeof name === 'string' && !/^[a-zA-Z0-9_-]+$/.test(name) ? `Invalid '${field}': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.` : undefined;
  for (const [index, message] of body.messages.entries()) {
    const calls = (message as { tool_calls?: { id?: unknown; function?: { name?: unknown } }[] }).tool_calls ?? [];
    const problem =
      calls
        .map((call, at) => tooLong(`messages[${index}].tool_calls[${at}].id`, call.id) ?? badName(`messages[${index}].tool_calls[${at}].function.name`, call.function?.name))
        .find(Boolean) ?? tooLong(`messages[${index}].tool_call_id`, (message as { tool_call_id?: unknown }).tool_call_id);
    if (problem) return problem;
  }
  return undefined;
}

/**
 * What DeepSeek's thinking mode says of a call whose earlier assistant message with tool calls does
 * not carry its reasoning back (`reasoning_content`), for the recordings of DeepSeek's reasoner.
 */
function deepseekRefusal(body: ChatBody): string | undefined {
  if (!/^(replay|cut)\/deepseek\//.test(body.model)) return undefined;
  const index = body.messages.findIndex((message) => message.role === 'assistant' && 'tool_calls' in message && typeof (message as { reasoning_content?: unknown }).reasoning_content !== 'string');
  return index < 0
    ? undefined
    : `Missing \`reasoning_content\` field in the assistant message at message index ${index}. For more information, please refer to https://api-docs.deepseek.com/guides/thinking_mode#tool-calls`;
}

type AnthropicBlock = { type: string; text?: string; content?: AnthropicBlock[]; signature?: string; data?: string };

/**
 * Each signature the recordings hold (a thinking block's, or a redacted block's data), and the
 * model that made it: the API takes a signature back only from that model.
 */
const SIGNED_BY = new Map(
  fixtureNames()
    .filter((name) => name.startsWith('anthropic/'))
    .flatMap((name) => {
      const text = readFixture(name);
      const model = recordedModel(text);
      return [...text.matchAll(/"signature":"([^"]+)"|"type":"redacted_thinking","data":"([^"]+)"/g)].map(([, signature, data]) => [(signature ?? data)!, model] as const);
    }),
);

/**
 * Where the request holds thinking signed by another model than the one it asks for (the model of
 * the recording it replays), as the API names the place (`messages.1.content.0`), or undefined. A
 * scripted model stands for no model, and takes any.
 */
function foreignSignature(body: ChatBody): string | undefined {
  const [kind, ...rest] = body.model.split('/');
  if (kind !== 'replay' && kind !== 'cut') return undefined;
  const model = recordedModel(readFixture(rest.join('/')));
  for (const [index, message] of body.messages.entries()) {
    if (!Array.isArray(message.content)) continue;
    for (const [at, block] of (message.content as AnthropicBlock[]).entries()) {
      const signature = block.type === 'thinking' ? block.signature : block.type === 'redacted_thinking' ? block.data : undefined;
      if (signature !== undefined && SIGNED_BY.get(signature) !== model) return `messages.${index}.content.${at}`;
    }
  }
  return undefined;
}

/** What the Messages API says of a body it refuses before any model sees it, or undefined. */
function anthropicRefusal(text: string, body: ChatBody): string | undefined {
  if (body.messages.length === 0) return 'messages: at least one message is required';
  // Claude 3 Haiku's and Opus's own output limit (script/claude-3-haiku stands for them).
  const maxTokens = (body as { max_tokens?: number }).max_tokens ?? 0;
  if (body.model.endsWith('claude-3-haiku') && maxTokens > 4096) return `max_tokens: ${maxTokens} > 4096, which is the maximum allowed number of output tokens for ${body.model}`;
  const toolBlocks = body.messages.some((message) => Array.isArray(message.content) && (message.content as AnthropicBlock[]).some((block) => block.type === 'tool_use' || block.type === 'tool_result'));
  if (toolBlocks && !body.tools?.length) return 'Requests which include `tool_use` or `tool_result` blocks must define tools.';
  const invalid = (body.tools as { input_schema?: Record<string, unknown> }[] | undefined)?.findIndex((tool) => propertyNotSchema(tool.input_schema) !== undefined) ?? -1;
  if (invalid >= 0) return `tools.${invalid}.custom.input_schema: JSON schema is invalid. It must match JSON Schema draft 2020-12 (https://json-schema.org/draft/2020-12). Learn more about tool use at https://docs.anthropic.com/en/docs/tool-use.`;
  const branched = (body.tools as { input_schema?: Record<string, unknown> }[] | undefined)?.findIndex((tool) => ['oneOf', 'anyOf', 'allOf'].some((key) => key in (tool.input_schema ?? {}))) ?? -1;
  if (branched >= 0) return `tools.${branched}.custom.input_schema: input_schema does not support oneOf, allOf, or anyOf at the top level`;
  if (LONE_SURROGATE_ESCAPE.test(text)) return 'The request body is not valid JSON: no low surrogate in string: line 1 column 1 (char 0)';
  const blank = (blocks: AnthropicBlock[]): string | undefined => {
    const texts = blocks.filter((block) => block.type === 'text').map((block) => block.text ?? '');
    if (texts.some((t) => t === '')) return 'messages: text content blocks must be non-empty';
    if (texts.length > 0 && texts.every((t) => t.trim() === '')) return 'messages: text content blocks must contain non-whitespace text';
    return blocks.map((block) => (block.type === 'tool_result' && Array.isArray(block.content) ? blank(block.content) : undefined)).find(Boolean);
  };
  for (const message of body.messages) {
    const problem = Array.isArray(message.content) ? blank(message.content as AnthropicBlock[]) : undefined;
    if (problem) return problem;
  }
  const signed = foreignSignature(body);
  if (signed) return `${signed}: Invalid \`signature\` in \`thinking\` block`;
  const last = body.messages.at(-1);
  const lastBlock = Array.isArray(last?.content) ? (last.content as AnthropicBlock[]).at(-1) : undefined;
  if (last?.role === 'assistant' && lastBlock?.type === 'text' && /\s$/.test(lastBlock.text ?? '')) return 'messages: final assistant content cannot end with trailing whitespace';
  return undefined;
}
