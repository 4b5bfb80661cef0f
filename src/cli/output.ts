/** Which of the CLI's two streams a line goes to. */
export type Stream = 'stdout' | 'stderr';

/**
 * The CLI's lines, written in the order they were printed, each run of lines to one stream in one
 * write: a write is some 10 µs of Node's stream work, and `status` prints a line per task (the
 * 470 lines of a 72 KiB plan took 8 ms written one by one). Lines printed in one turn of the event
 * loop go out at its end (a microtask), so nothing is held while the CLI waits for a file, git or
 * the network; `flush` writes what is left at once (the CLI calls it on exit).
 */
export function lineOutput(write: (to: Stream, text: string) => void): {
  stdout: (line: string) => void;
  stderr: (line: string) => void;
  flush: () => void;
} {
  const queue: { to: Stream; text: string }[] = [];
  let due = false;
  const flush = () => {
    due = false;
    const lines = queue.splice(0);
    for (let i = 0; i < lines.length;) {
      const { to } = lines[i]!;
      let text = '';
      for (; i < lines.length && lines[i]!.to === to; i++) text += lines[i]!.text;
      write(to, text);
    }
  };
  const line = (to: Stream) => (text: string) => {
    queue.push({ to, text: `${text}\n` });
    if (!due) {
      due = true;
      queueMicrotask(flush);
    }
  };
  return { stdout: line('stdout'), stderr: line('stderr'), flush };
}
