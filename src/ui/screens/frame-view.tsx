import { Box, Text } from 'ink';
import { clipRow, visibleBody, type Frame, type Row, type Size, type Tone } from '../view/frame.js';

interface Style {
  color?: string;
  bold?: boolean;
  dimColor?: boolean;
  inverse?: boolean;
}

const STYLE: Record<Tone, Style> = {
  plain: {},
  dim: { dimColor: true },
  title: { bold: true },
  accent: { color: 'cyan' },
  good: { color: 'green' },
  bad: { color: 'red' },
  warn: { color: 'yellow' },
  selected: { inverse: true, bold: true },
};

/** Draws a frame: header, the visible body window padded to its height, footer. */
export function FrameView({ frame, size }: { frame: Frame; size: Size }) {
  const body = visibleBody(frame);
  const padding = Math.max(0, frame.height - body.length);
  const rows: Row[] = [
    ...frame.header,
    ...body,
    ...Array.from({ length: padding }, (): Row => []),
    ...frame.footer,
  ];
  return (
    <Box flexDirection="column" width={size.columns}>
      {rows.map((r, i) => (
        <RowView key={i} row={clipRow(r, size.columns)} />
      ))}
    </Box>
  );
}

function RowView({ row }: { row: Row }) {
  if (row.every((s) => s.text === '')) return <Text> </Text>;
  return (
    <Text wrap="truncate-end">
      {row.map((segment, i) => (
        <Text key={i} {...STYLE[segment.tone ?? 'plain']}>
          {segment.text}
        </Text>
      ))}
    </Text>
  );
}
