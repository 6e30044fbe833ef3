/**
 * The parsed messages a session keeps between turns (see `HistoryStore`): frozen because every later
 * turn shares them, and joined by each message stored on their path after them, so that the next turn
 * reads nothing again. They are the messages of `path` after `afterSeq` (`key` names the path), with
 * their tool call ids once asked for. And the messages the isolate keeps parsed for whichever of its
 * objects reads them back (`parsedOnce`: a woken one).
 */
import { addCallIds } from '../../agent/history';
import type { HistoryMessage } from '../../api/content';
import { pathKey, type Place, type Range } from './branches';

/** `callIds`: the tool call ids of `messages`, gathered by their first use (`HistoryStore.historyCallIds`) and joined as they are. */
export type LoadedHistory = { key: string; path: Range[]; afterSeq: number; seqs: number[]; messages: HistoryMessage[]; callIds?: Set<string> };

export function loadHistory(path: Range[], afterSeq: number, rows: { seq: number; message: HistoryMessage }[]): LoadedHistory {
  return { key: pathKey(path), path, afterSeq, seqs: rows.map((row) => row.seq), messages: rows.map((row) => deepFreeze(row.message)) };
}

/**
 * A message was stored at `seq`, where `place` put it: whether the kept messages, joined by it, are
 * still the messages of a path (false: they must be read again). A message on their path joins them;
 * a turn's first message from a base joins the messages of the path to that base, and its branch,
 * now the active one, continues that path (`active`); a message elsewhere (another hand's) leaves
 * them no longer whole.
 */
export function keepLoaded(loaded: LoadedHistory, seq: number, message: HistoryMessage, place: Place, active: () => Range[]): boolean {
  if (place.from) {
    if (loaded.key !== pathKey(place.from)) return false;
    loaded.path = active();
    loaded.key = pathKey(loaded.path);
  }
  if (!loaded.path.some((range) => range.branch === place.branch && seq <= range.upTo)) return false;
  if (seq <= loaded.afterSeq) return true;
  let at = loaded.seqs.length;
  while (at > 0 && (loaded.seqs[at - 1] ?? 0) > seq) at--;
  loaded.seqs.splice(at, 0, seq);
  loaded.messages.splice(at, 0, deepFreeze(structuredClone(message)));
  if (loaded.callIds) addCallIds(loaded.callIds, message);
  return true;
}

/**
 * How many characters of stored messages an isolate keeps parsed (`parsedOnce`): about a megabyte of
 * text, and what was made of it, beside the histories its objects keep while they live. A longer
 * message than a sixteenth of it is parsed each time.
 */
export const PARSED_CHARS = 1_000_000;

/** The messages `parsedOnce` made, by their stored JSON, oldest first; and their texts' length. */
const parsedByText = new Map<string, HistoryMessage>();
let parsedChars = 0;

/**
 * A stored message's JSON (`text`) as `parse` makes it, frozen, made once for the isolate's life
 * within a bound (`PARSED_CHARS`, the least recently read forgotten first). An idle session's object
 * is evicted and woken again by its next turn, often in the same isolate: it reads its kept messages
 * back, and takes each one read before as it was made then, the same object, so that what the
 * providers made of it (its conversion, its JSON, kept with the object) holds too. A message is a
 * function of its text alone, so an entry serves whichever session reads that text (a fork's copies
 * too). What was made is frozen, as every kept message is (bench/PROFILE.md, "A woken session's
 * messages parsed once").
 */
export function parsedOnce(text: string, parse: (text: string) => HistoryMessage): HistoryMessage {
  let message = parsedByText.get(text);
  if (message) parsedByText.delete(text);
  else {
    message = deepFreeze(parse(text));
    if (text.length > PARSED_CHARS / 16) return message;
    parsedChars += text.length;
  }
  parsedByText.set(text, message);
  if (parsedChars > PARSED_CHARS) {
    for (const oldest of parsedByText.keys()) {
      parsedByText.delete(oldest);
      parsedChars -= oldest.length;
      if (parsedChars <= PARSED_CHARS) break;
    }
  }
  return message;
}

/** Kept messages are shared by every later turn: frozen, so that none can change another's. */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}
