/**
 * A request sent as a server's refusals taught (the OpenAI adapter's dialect, the Anthropic one's
 * limits): a refusal is read, and where it teaches something not known the request is built again
 * with it and sent once more; where it teaches nothing it is handed on as it came, to be reported.
 * Each refusal must teach something new, so the loop ends. What was learnt is logged: it changes
 * what the model is offered (a tool left out, say).
 */
export type Teacher<Known> = {
  provider: string;
  server: string;
  /** The statuses a refusal that may teach comes with (400; OpenRouter's 404 too). */
  statuses: readonly number[];
  build(known: Known): Record<string, unknown>;
  post(signal: AbortSignal, body: Record<string, unknown>): Promise<Response>;
  /** What a refusal of `body`, sent as `known` taught, teaches beyond it; undefined when nothing. */
  learn(known: Known, body: Record<string, unknown>, detail: string): Known | undefined;
};

export async function sendAsTaught<Known>(signal: AbortSignal, known: Known, teacher: Teacher<Known>): Promise<Response> {
  let body = teacher.build(known);
  let response = await teacher.post(signal, body);
  while (teacher.statuses.includes(response.status)) {
    const detail = await response.text();
    const learnt = teacher.learn(known, body, detail);
    if (!learnt) return refusalAsItCame(response, detail);
    console.warn(`${teacher.provider}: the server's refusal taught`, teacher.server, learnt);
    known = learnt;
    body = teacher.build(known);
    response = await teacher.post(signal, body);
  }
  return response;
}

/** A refusal whose body was read (to learn from it), as it came: its status and the body read. */
function refusalAsItCame(response: Response, detail: string): Response {
  return new Response(detail, { status: response.status, statusText: response.statusText, headers: { 'content-type': response.headers.get('content-type') ?? 'application/json' } });
}
