/**
 * What a Chat Completions server wants beyond the common shape, learnt from its refusals. The servers
 * behind `OPENAI_BASE_URL` differ, and their demands contradict what others refuse or write:
 * - `reasoningBack`: each assistant message carries its thinking as `reasoning_content`. DeepSeek's
 *   thinking mode (and Kimi's) refuses a call whose earlier tool calls come without it ("Missing
 *   `reasoning_content` field in the assistant message"); OpenAI, Cerebras and Mistral refuse the field.
 * - `alternating`: one system message first, then user and assistant in turn. The chat templates of
 *   Mistral's and Gemma's models (served by vLLM, llama.cpp) refuse anything else ("Conversation
 *   roles must alternate user/assistant/user/assistant/..."), and so does DeepSeek's reasoner
 *   ("deepseek-reasoner does not support successive user or assistant messages"), Mistral's API
 *   ("Unexpected role 'user' after role 'tool'") and Bedrock behind a gateway ("A conversation must
 *   alternate between user and assistant roles"), where two user messages in a row are common (a
 *   turn that failed before its answer, a summary before the next message), so is a user message
 *   after a tool's result (a turn that stopped after its tools ran), and OpenAI takes a system
 *   message anywhere.
 * - `nineCharacterIds`: tool call ids of exactly nine letters and digits. Mistral's API (and its
 *   models' templates under vLLM) refuses any other ("Tool call id was call_… but must be a-z, A-Z,
 *   0-9, with a length of 9"), where other models and this service write longer ones.
 * - `thoughtSignatures`: each earlier tool call carries its thought signature. Gemini 3 (through its
 *   OpenAI-compatible endpoint) refuses a call without one ("Function call is missing a
 *   thought_signature in functionCall parts"). The history keeps the signature each came with; a
 *   call that came with none (another model's) goes with the value Google documents for a signature
 *   not at hand (`skip_thought_signature_validator`).
 * - `noStreamOptions`: no `stream_options` (the ask for usage on the stream's last chunk), which some
 *   servers refuse ("Unrecognized request argument supplied: stream_options": Azure OpenAI, gateways).
 * - `noTools`: no tools at all. Ollama refuses any for a model without tool use
 *   ("registry.ollama.ai/library/deepseek-r1:14b does not support tools"), and so does vLLM started
 *   without a tool-call parser ("\"auto\" tool choice requires --enable-auto-tool-choice and
 *   --tool-call-parser to be set"), and OpenRouter where none of a model's providers takes tools
 *   (404: "No endpoints found that support tool use"); the model can still answer in text.
 * - `maxOutputTokens`: a request's `maxTokens` (pi's) within the model's own limit, which OpenAI
 *   names ("max_tokens is too large: 100000. This model supports at most 16384 completion tokens").
 * - `maxTools`: at most this many tools. OpenAI takes 128 ("Invalid 'tools': array too long.
 *   Expected an array with maximum length 128"), where a deployment's MCP servers and a request's
 *   client tools can offer more; which go is `tool-limit.ts`'s choice.
 * - `unknownSchemaKeys`: JSON Schema keywords the server does not know, left out of the tools'
 *   schemas. Gemini's API behind gateways that translate to it refuses each by name ("Invalid JSON
 *   payload received. Unknown name \"additionalProperties\" at 'tools[0].function_declarations[0]
 *   .parameters'"), where MCP servers' schemas carry them.
 * - `refusedTools`: tools whose schemas the server refused (`refused-tools.ts`), left out.
 * - `maxDescription`: tool descriptions of at most this many characters. OpenAI takes 1024
 *   ("Invalid 'tools[13].function.description': string too long"), where MCP servers write longer
 *   ones (Sentry's, the sequential-thinking server's); a longer one goes shortened.
 * - `maxCompletionTokens`, `noTemperature`: OpenAI's reasoning models (o-series, GPT-5) refuse
 *   `max_tokens` ("Use 'max_completion_tokens' instead") and a temperature but their default, which
 *   a request can bring (pi's `maxTokens`, the Harness's `temperature`).
 * A refused call is sent again in the dialect its refusal asks for, and the server and model keep
 * it for the isolate's life (`openai-provider.ts`). A server that never asks never sees either.
 */
import { BoundedMap } from '../../lib/bounded-map';
import { withRefusedTool } from '../refused-tools';

export type ChatDialect = {
  reasoningBack?: boolean;
  alternating?: boolean;
  nineCharacterIds?: boolean;
  thoughtSignatures?: boolean;
  noStreamOptions?: boolean;
  maxCompletionTokens?: boolean;
  noTemperature?: boolean;
  noTools?: boolean;
  maxTools?: number;
  maxDescription?: number;
  maxOutputTokens?: number;
  unknownSchemaKeys?: string[];
  refusedTools?: string[];
};

/** The limits a dialect may name, beside its demands. */
type Limit = 'maxTools' | 'maxDescription' | 'maxOutputTokens';
/** What a dialect holds beside its demands (yes or no). */
type Learnt = Limit | 'unknownSchemaKeys' | 'refusedTools';

const DEMANDS: [RegExp, Exclude<keyof ChatDialect, Learnt>][] = [
  [/missing `?reasoning_content`?|reasoning_content`? in the thinking mode must be passed back/i, 'reasoningBack'],
  [/roles must alternate|must alternate between user and assistant|does not support successive user or assistant messages|unexpected role 'user' after role 'tool'/i, 'alternating'],
  [/must be a-z, A-Z, 0-9, with a length of 9/i, 'nineCharacterIds'],
  [/missing a `?thought_signature/i, 'thoughtSignatures'],
  [/stream_options/i, 'noStreamOptions'],
  [/max_completion_tokens/i, 'maxCompletionTokens'],
  [/unsupported (value|parameter): '?temperature/i, 'noTemperature'],
  [/tool choice requires --enable-auto-tool-choice|does not support tools|no endpoints found that support tool use/i, 'noTools'],
];

/** Each server and model's dialect as learnt so far; the oldest forgotten past a bound no deployment reaches. */
const dialects = new BoundedMap<string, ChatDialect>(256);

export function dialectOf(server: string): ChatDialect {
  return dialects.get(server) ?? {};
}

/** OpenAI's words for more tools, a longer tool description or more output than it takes, and the number it takes. */
const LIMITS: [RegExp, Limit][] = [
  [/'tools': array too long\. Expected an array with maximum length (\d+)/i, 'maxTools'],
  [/'tools\[\d+\]\.function\.description': string too long\. Expected a string with maximum length (\d+)/i, 'maxDescription'],
  [/supports at most (\d+) completion tokens/i, 'maxOutputTokens'],
];

/** A schema keyword a server names as unknown in a tool's parameters (its quotes escaped in a JSON body, or not). */
const UNKNOWN_SCHEMA_KEY = /Unknown name \\?"([A-Za-z_$][\w$]*)\\?" at '?tools\[\d+\]/g;

/**
 * The dialect a refusal asks for beyond the one it refused, remembered; undefined when it asks for
 * nothing new. `sentTools`: the names of the tools the refused call offered, as it offered them.
 */
export function learnFrom(server: string, refused: ChatDialect, detail: string, sentTools: readonly string[] = []): ChatDialect | undefined {
  const asked = namedLimit(refused, detail) ?? unknownKeys(refused, detail) ?? withRefusedTool(refused.refusedTools, detail, sentTools) ?? demanded(refused, detail);
  if (!asked) return undefined;
  const dialect = { ...dialectOf(server), ...refused, ...asked };
  dialects.set(server, dialect);
  return dialect;
}

/** A limit the refusal names (`LIMITS`), where it is not the one sent within. */
function namedLimit(refused: ChatDialect, detail: string): ChatDialect | undefined {
  for (const [pattern, key] of LIMITS) {
    const value = Number(pattern.exec(detail)?.[1]);
    if (value > 0 && value !== refused[key]) return { [key]: value };
  }
  return undefined;
}

/** Schema keywords the refusal names as unknown, beside those already left out. */
function unknownKeys(refused: ChatDialect, detail: string): ChatDialect | undefined {
  const known = new Set(refused.unknownSchemaKeys);
  const unknown = [...new Set([...detail.matchAll(UNKNOWN_SCHEMA_KEY)].map((match) => match[1]!))].filter((key) => !known.has(key));
  return unknown.length > 0 ? { unknownSchemaKeys: [...known, ...unknown] } : undefined;
}

/** A demand the refusal makes (`DEMANDS`) that the refused call did not meet. */
function demanded(refused: ChatDialect, detail: string): ChatDialect | undefined {
  const demand = DEMANDS.find(([pattern, key]) => !refused[key] && pattern.test(detail));
  return demand ? { [demand[1]]: true } : undefined;
}
