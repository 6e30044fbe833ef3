/**
 * Sentences from streamed text, for the chat protocol's `llm_text_sentence` / `llm_thinking_sentence`: a
 * sentence ends after Chinese or full-width end punctuation (。！？；…), after Latin end punctuation
 * (. ! ?) followed by a space, and at a line break; never inside a number (`3.14`), after a common
 * abbreviation (`e.g.`, `Dr.`) or an initial (`J. K.`), or inside a URL. The whitespace (line breaks
 * included) after an end belongs to the sentence it ends, so the sentences of a text join back to it exactly, however the
 * text was cut into deltas.
 */
export type Sentence = { sentence: string; index: number };

const CJK_END = new Set(['。', '！', '？', '；', '…', '｡']);
const LATIN_END = new Set(['.', '!', '?']);
const CLOSERS = new Set(['"', "'", '”', '’', ')', ']', '}', '」', '』', '）', '】', '》']);
const ABBREVIATIONS = new Set(['e.g', 'i.e', 'etc', 'vs', 'dr', 'mr', 'mrs', 'ms', 'prof', 'st', 'jr', 'sr', 'no', 'fig', 'cf', 'approx', 'inc', 'ltd', 'co']);

/** Any character that may end a sentence. */
const ANY_MARK = /[.!?\n。！？；…｡]/;
/** How much scanned text the scan looks back into: longer than any abbreviation. */
const CONTEXT_CHARS = 64;

export class SentenceSplitter {
  /**
   * The sentence being built is kept in parts, never as one growing string: reading a character of
   * a string built by `+=` makes V8 copy it whole, which would cost quadratic time in the length of a
   * sentence. `parts`: scanned text with no end in it; `tail`: what is still to scan (from an end
   * mark that more text may decide).
   */
  private parts: string[] = [];
  private tail = '';

  /** `next`: the index of the first sentence (indexes count per message, across its blocks). */
  constructor(private next = 0) {}

  /** The index the sentence after the last one taken would have. */
  get nextIndex(): number {
    return this.next;
  }

  /** The sentences this delta completes. */
  push(delta: string): Sentence[] {
    // Most deltas hold no end mark at all: nothing to scan.
    if (this.tail === '' && !ANY_MARK.test(delta)) {
      if (delta !== '') this.parts.push(delta);
      return [];
    }
    this.tail += delta;
    return this.drain(false);
  }

  /** The rest, as a last sentence, at the end of the text. */
  flush(): Sentence[] {
    const done = this.drain(true);
    if (this.parts.length > 0 || this.tail !== '') done.push(this.take(this.tail.length));
    return done;
  }

  private drain(final: boolean): Sentence[] {
    const done: Sentence[] = [];
    for (;;) {
      const context = this.lookback();
      const offset = context.length;
      const found = findEnd(context + this.tail, final, offset);
      if ('end' in found) {
        done.push(this.take(found.end - offset));
        continue;
      }
      // Nothing before the undecided mark can end a sentence any more: it moves to the parts.
      const scanned = found.resumeAt - offset;
      if (scanned > 0) {
        this.parts.push(this.tail.slice(0, scanned));
        this.tail = this.tail.slice(scanned);
      }
      return done;
    }
  }

  /** The last characters of the parts (an abbreviation's word may begin there). */
  private lookback(): string {
    let text = '';
    for (let index = this.parts.length - 1; index >= 0 && text.length < CONTEXT_CHARS; index--) text = this.parts[index] + text;
    return text.slice(-CONTEXT_CHARS);
  }

  /** The sentence: the parts, and the first `length` characters of the tail. */
  private take(length: number): Sentence {
    this.parts.push(this.tail.slice(0, length));
    const sentence = { sentence: this.parts.join(''), index: this.next++ };
    this.tail = this.tail.slice(length);
    this.parts = [];
    return sentence;
  }
}

/** Splits a whole text at once. */
export function splitSentences(text: string): string[] {
  const splitter = new SentenceSplitter();
  return [...splitter.push(text), ...splitter.flush()].map((s) => s.sentence);
}

/**
 * Where the first sentence of `text` ends (exclusive), or where to look again once more text has
 * come: an end mark at the very end of what has arrived may still turn out to be part of a number or
 * a URL. The scan starts at `from`, before which the caller knows there is no end.
 */
function findEnd(text: string, final: boolean, from: number): { end: number } | { resumeAt: number } {
  const wait = (at: number) => ({ resumeAt: at });
  for (let at = from; at < text.length; at++) {
    const char = text[at]!;
    if (char === '\n') {
      const end = skipWhile(text, at + 1, (c) => c === '\n' || c === '\r');
      return end === text.length && !final ? wait(at) : { end }; // more line breaks may follow
    }
    if (CJK_END.has(char)) {
      const end = skipWhile(text, skipWhile(text, at + 1, (c) => CJK_END.has(c)), (c) => CLOSERS.has(c));
      const spaced = skipWhile(text, end, isSpace);
      return spaced === text.length && !final ? wait(at) : { end: spaced }; // a closer or more space may follow
    }
    if (LATIN_END.has(char)) {
      const marks = skipWhile(text, at + 1, (c) => LATIN_END.has(c));
      const closed = skipWhile(text, marks, (c) => CLOSERS.has(c));
      if (closed === text.length) {
        if (!final) return wait(at);
        continue; // the text's own end: the rest is one sentence
      }
      if (!isSpace(text[closed]!)) {
        at = closed - 1; // `3.14`, `example.com`, `a.b`: not an end
        continue;
      }
      if (char === '.' && isAbbreviation(text, at)) {
        at = closed - 1;
        continue;
      }
      const end = skipWhile(text, closed, isSpace);
      if (end === text.length && !final) return wait(at); // more space may follow
      return { end };
    }
  }
  return wait(text.length);
}

function isAbbreviation(text: string, dot: number): boolean {
  let start = dot;
  while (start > 0 && !isSpace(text[start - 1]!)) start--;
  const word = text.slice(start, dot).replace(/^[("'“‘[]+/, '');
  if (/^[A-Z]$/.test(word)) return true; // an initial: J. K. Rowling
  return ABBREVIATIONS.has(word.toLowerCase());
}

function skipWhile(text: string, from: number, test: (char: string) => boolean): number {
  let at = from;
  while (at < text.length && test(text[at]!)) at++;
  return at;
}

const isSpace = (char: string) => /\s/.test(char);
