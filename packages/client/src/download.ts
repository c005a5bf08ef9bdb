// Streams a response body into a file or a WritableStream without holding it in memory. A file is
// written beside its target and renamed when complete, so a cut download never looks finished.
// node:fs is imported only for a path, so browsers (WritableStream only) never load it; the
// specifiers are kept out of bundlers' sight so a browser build does not try to resolve them.

export async function downloadTo(
  response: Response,
  destination: string | WritableStream<Uint8Array>,
  signal?: AbortSignal,
): Promise<number> {
  if (!response.body) throw new TypeError('The result answer has no body');
  let bytes = 0;
  const counted = response.body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        bytes += chunk.byteLength;
        controller.enqueue(chunk);
      },
    }),
  );
  if (typeof destination !== 'string') {
    await counted.pipeTo(destination, signal ? { signal } : {});
    return bytes;
  }
  const [{ open, rename, rm }, { Writable }] = await Promise.all([
    importNode<typeof import('node:fs/promises')>('node:fs/promises'),
    importNode<typeof import('node:stream')>('node:stream'),
  ]);
  const partial = `${destination}.part`;
  // The file is opened before any byte flows: a stream that opened it lazily could create it after
  // a failed download had already removed it.
  const sink = (await open(partial, 'w')).createWriteStream();
  try {
    await counted.pipeTo(Writable.toWeb(sink), signal ? { signal } : {});
    await rename(partial, destination);
  } catch (error) {
    if (!sink.closed) await new Promise<void>((resolve) => sink.once('close', () => resolve()));
    await rm(partial, { force: true });
    throw error;
  }
  return bytes;
}

function importNode<T>(specifier: string): Promise<T> {
  return import(/* webpackIgnore: true */ /* @vite-ignore */ specifier) as Promise<T>;
}
