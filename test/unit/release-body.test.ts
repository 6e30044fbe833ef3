/**
 * Letting go of a response body we are done with (`releaseBody`): read to its end, so that the
 * runtime keeps its connection, or cancelled once it has not ended within its bound.
 */
import { describe, expect, it } from 'vitest';
import { releaseBody } from '../../src/lib/release-body';

describe('releaseBody', () => {
  it('cancels a finished body that does not end within its bound', async () => {
    const seen = { cancelled: false };
    const pieces = [new TextEncoder().encode(': more\n\n'), new TextEncoder().encode(': more\n\n')];
    // Two pieces, then nothing more and no end.
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        const piece = pieces.shift();
        if (piece) controller.enqueue(piece);
      },
      cancel: () => void (seen.cancelled = true),
    });
    releaseBody(stream.getReader(), 30);
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(seen.cancelled).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(seen.cancelled).toBe(true);
  });
});
