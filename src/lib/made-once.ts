/**
 * A value made by its first use, then kept: for schemas a module would otherwise make as it loads.
 * Every new isolate loads every module of its graph, and pays for each schema made then, on its
 * first request, whether that request needs it or not (bench/PROFILE.md, "The configuration's
 * checks made for what is set").
 */
export function madeOnce<T>(make: () => T): () => T {
  let made: { value: T } | undefined;
  return () => (made ??= { value: make() }).value;
}
