import { useStdout } from 'ink';
import { useEffect, useState } from 'react';
import type { Size } from './view/frame.js';

/** The terminal's size, re-read whenever it is resized. */
export function useTerminalSize(): Size {
  const { stdout } = useStdout();
  const [size, setSize] = useState<Size>(() => read(stdout));
  useEffect(() => {
    const onResize = (): void => setSize(read(stdout));
    stdout.on('resize', onResize);
    onResize();
    return () => {
      stdout.off('resize', onResize);
    };
  }, [stdout]);
  return size;
}

function read(stdout: NodeJS.WriteStream): Size {
  // Streams that are not terminals report no size: assume a common one.
  return { columns: stdout.columns || 80, rows: stdout.rows || 24 };
}
