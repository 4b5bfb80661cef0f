import { readKiro } from './kiro.js';
import type { DialectPlan } from './markdownDialect.js';
import { readOpenspec } from './openspec.js';
import { readSpeckit } from './speckit.js';

/** The markdown kinds, each with its reader: the one place a markdown kind is registered. */
const READERS = {
  speckit: (source: string, path: string) => readSpeckit(source, path),
  kiro: (source: string, path: string) => readKiro(source, path),
  openspec: readOpenspec,
} as const;

export type MarkdownKind = keyof typeof READERS;

export function isMarkdownKind(kind: string): kind is MarkdownKind {
  return Object.hasOwn(READERS, kind);
}

/** A markdown kind's tasks file, read by its own reader. */
export function readMarkdownPlan(kind: MarkdownKind, source: string, path: string): DialectPlan {
  return READERS[kind](source, path);
}
