/**
 * Which call a streamed tool call delta belongs to. OpenAI numbers each call of a response (`index`)
 * and names it (`id`) on its first delta, then sends its arguments in pieces under the index alone.
 * Other servers do not keep that contract, and taken by index alone their parallel calls run
 * together into one, whose arguments are no JSON (`{"a":1}{"b":2}`):
 * - Gemini's OpenAI-compatible endpoint sends each call whole and without an index;
 * - Ollama, and gateways that translate other APIs, give every call of a response index 0.
 * So a delta's id, where it has one, decides: an id not seen before is a new call, unless its index
 * names a call that has no id yet (an id sent after a first piece). A delta without an id belongs to
 * the call its index names last, or without an index to the last call without one (a thought
 * signature sent alone follows its call).
 */
export function callSlots(): (index: number | null | undefined, id: string | null | undefined) => number {
  const byIndex = new Map<number, number>();
  const byId = new Map<string, number>();
  const named = new Set<number>();
  let calls = 0;
  return (index, id) => {
    const key = index ?? -1;
    let slot = id ? byId.get(id) : undefined;
    if (slot === undefined) {
      const current = byIndex.get(key);
      slot = current !== undefined && !(id && named.has(current)) ? current : calls++;
    }
    if (id && !named.has(slot)) {
      byId.set(id, slot);
      named.add(slot);
    }
    byIndex.set(key, slot);
    return slot;
  };
}
