// A child process's output, read as it comes: tests poll what it printed so far and await the rest.

export interface StreamText {
  /** The text read so far. */
  text(): string;
  /** All of it, once the stream ends. */
  done: Promise<string>;
}

export function streamText(stream: ReadableStream<Uint8Array>): StreamText {
  let text = "";
  const done = (async () => {
    const reader = stream.getReader();
    // One decoder for the whole stream: a character split across two chunks is decoded whole.
    const decoder = new TextDecoder();
    for (let read = await reader.read(); !read.done; read = await reader.read())
      text += decoder.decode(read.value, { stream: true });
    text += decoder.decode();
    return text;
  })();
  return { text: () => text, done };
}
