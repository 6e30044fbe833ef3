/**
 * The peer: Cloudflare's `AIChatAgent` (`@cloudflare/ai-chat`, on the `agents` SDK) doing the same
 * job, a streamed turn persisted in its Durable Object's SQLite, with the Vercel AI SDK's `streamText`
 * against the same stand-in upstream (OpenAI-compatible). Reached over its WebSocket chat protocol
 * at `/agents/chat/<name>`; the request's `body.model` picks the upstream model.
 */
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { AIChatAgent, type OnChatMessageOptions } from '@cloudflare/ai-chat';
import { routeAgentRequest } from 'agents';
import { convertToModelMessages, streamText, type GenerateTextOnFinishCallback, type ToolSet } from 'ai';

type Env = Cloudflare.Env & { UPSTREAM_URL: string; Chat: DurableObjectNamespace };

export class Chat extends AIChatAgent<Env> {
  override async onChatMessage(onFinish: GenerateTextOnFinishCallback<ToolSet>, options?: OnChatMessageOptions): Promise<Response> {
    const upstream = createOpenAICompatible({ name: 'bench', baseURL: `${this.env.UPSTREAM_URL}/v1` });
    const model = typeof options?.body?.model === 'string' ? options.body.model : 'deltas-5';
    const result = streamText({ model: upstream(model), messages: await convertToModelMessages(this.messages), onFinish });
    return result.toUIMessageStreamResponse();
  }
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    if (new URL(request.url).pathname === '/healthz') return new Response('ok');
    return (await routeAgentRequest(request, env)) ?? new Response('not found', { status: 404 });
  },
};
