/**
 * The seed's "Assess Task Complexity" node: seed 002's Quick Mode and Plan Mode triggers applied
 * to what an issue says (and, when known, how many files and lines a change touches).
 */
export type Mode = 'quick' | 'plan';

export interface AssessInput {
  title?: string;
  body?: string;
  /** Files the change touches, when known (a pull request, or `--files`). */
  files?: number;
  /** Changed lines (additions + deletions), when known. */
  lines?: number;
}

export interface AssessLimits {
  maxFiles: number;
  maxLines: number;
}

export interface Reason {
  mode: Mode;
  /** The seed's trigger, as written there. */
  trigger: string;
  /** What in the input set it off. */
  evidence: string;
}

export interface Assessment {
  mode: Mode;
  reasons: Reason[];
}

/** Only this much of an issue is read: enough for any real description, bounded for hostile ones. */
const MAX_ASSESS_CHARS = 20_000;

interface WordTrigger {
  mode: Mode;
  trigger: string;
  pattern: RegExp;
}

const WORD_TRIGGERS: WordTrigger[] = [
  {
    mode: 'quick',
    trigger: 'User explicitly uses "quick", "just", "simple"',
    pattern: /\b(quick|just|simple)\b/i,
  },
  {
    mode: 'quick',
    trigger: 'Typo fixes, comment updates, simple refactors',
    // A comment in code, not a comments feature ("a comments section with moderation").
    pattern: new RegExp(
      String.raw`\b(typos?|misspell\w*|spelling|wording|docstrings?|rename|` +
        String.raw`(?:(?:code|doc|inline|source|jsdoc)\s+|(?:update|fix|reword|clarify|correct|improve|add|remove)\s+(?:(?:a|an|the|this|that|outdated|stale|misleading)\s+)?)comments?\b(?!\s+(?:section|system|thread|feature|form|box|moderation|api|page|widget)))`,
      'i',
    ),
  },
  {
    mode: 'quick',
    trigger: 'Log statement additions',
    // Logging as in log output, not a user "logging in".
    pattern: /\b(log (?:statement|line|message)s?|logging(?![- ]in\b)|console\.log|debug log)\b/i,
  },
  {
    mode: 'quick',
    trigger: 'Simple bug fixes with obvious solutions',
    pattern: /\b(obvious|one[- ]liner|off[- ]by[- ]one)\b/i,
  },
  {
    mode: 'plan',
    trigger: 'New feature implementation',
    pattern:
      /\b(new feature|feature request|implement\w*|add support|introduce|new (?:endpoint|command|module|service|page|api)|(?:add|build|create)\s+(?:an?\s+|the\s+)?(?:[\w-]+\s+){0,3}(?:section|flow|system|dashboard|workflow|integration|page))\b/i,
  },
  {
    mode: 'plan',
    trigger: 'Refactoring with architectural impact',
    pattern: /\b(architect\w*|redesign|restructur\w*|migrat\w*|rewrite|overhaul)\b/i,
  },
  {
    mode: 'plan',
    trigger: 'Changes requiring test updates',
    pattern: /\b(update (?:the )?tests?|new tests?|test (?:suite|coverage)|integration tests?)\b/i,
  },
  {
    mode: 'plan',
    trigger: 'Checklist item referenced',
    pattern: /(\bphase\s+\d+\b|\bchecklist\b|docs\/plans\/|^\s*[-*+]\s+\[[ ~xX]\]|\bT\d{3,}\b)/im,
  },
  {
    mode: 'plan',
    trigger: 'Complex bug fixes',
    pattern:
      /\b(race condition|deadlock|crash\w*|memory leak|intermittent\w*|flaky|data loss|corrupt\w*|security|vulnerab\w*)\b/i,
  },
  {
    mode: 'plan',
    trigger: 'Multi-file changes',
    pattern:
      /\b(multiple files|several files|many files|across (?:the )?(?:codebase|modules|files|services))\b/i,
  },
];

const ESTIMATE = /\b(\d+(?:\.\d+)?)\s*(min(?:ute)?s?|h(?:ours?|rs?)?|days?|weeks?)\b/gi;

/** Drop fenced code and quoted lines: they quote other text, they do not describe the task. */
function prose(text: string): string {
  return text
    .slice(0, MAX_ASSESS_CHARS)
    .replace(/^( {0,3})(`{3,}|~{3,})[^\n]*\n[\s\S]*?(?:^ {0,3}\2[^\n]*$|(?![\s\S]))/gm, ' ')
    .replace(/^ {0,3}>.*$/gm, ' ');
}

function quote(match: string): string {
  const trimmed = match.trim().replace(/\s+/g, ' ');
  return `"${trimmed.length > 40 ? `${trimmed.slice(0, 40)}…` : trimmed}"`;
}

export function assessComplexity(input: AssessInput, limits: AssessLimits): Assessment {
  const reasons: Reason[] = [];
  const text = prose(`${input.title ?? ''}\n${input.body ?? ''}`);

  for (const t of WORD_TRIGGERS) {
    const m = t.pattern.exec(text);
    if (m)
      reasons.push({ mode: t.mode, trigger: t.trigger, evidence: `the text says ${quote(m[0])}` });
  }

  for (const m of text.matchAll(ESTIMATE)) {
    const n = Number(m[1]);
    const unit = (m[2] ?? '').toLowerCase();
    const minutes = unit.startsWith('m')
      ? n
      : unit.startsWith('h')
        ? n * 60
        : unit.startsWith('d')
          ? n * 480
          : n * 2400;
    if (minutes < 10)
      reasons.push({
        mode: 'quick',
        trigger: 'Estimated < 10 minutes',
        evidence: `the text says ${quote(m[0])}`,
      });
    else
      reasons.push({
        mode: 'plan',
        trigger: 'Estimated > 10 minutes',
        evidence: `the text says ${quote(m[0])}`,
      });
    break;
  }

  if (input.files !== undefined) {
    if (input.files > limits.maxFiles) {
      reasons.push({
        mode: 'plan',
        trigger: 'Multi-file changes',
        evidence: `${input.files} files change (quick allows ${limits.maxFiles})`,
      });
    } else if (input.lines === undefined || input.lines < limits.maxLines) {
      reasons.push({
        mode: 'quick',
        trigger: `Single file edit (< ${limits.maxLines} lines)`,
        evidence: `${input.files} file${input.files === 1 ? '' : 's'}${input.lines === undefined ? '' : `, ${input.lines} lines`}`,
      });
    }
  }
  if (input.lines !== undefined && input.lines >= limits.maxLines) {
    reasons.push({
      mode: 'plan',
      trigger: `Single file edit (< ${limits.maxLines} lines) does not hold`,
      evidence: `${input.lines} lines change`,
    });
  }

  const plan = reasons.some((r) => r.mode === 'plan');
  const quick = reasons.some((r) => r.mode === 'quick');
  if (!plan && quick) {
    reasons.push({
      mode: 'quick',
      trigger: 'No architectural impact',
      evidence: 'no plan-mode trigger was found',
    });
    return { mode: 'quick', reasons };
  }
  if (!plan) {
    reasons.push({
      mode: 'plan',
      trigger: 'No quick-mode trigger',
      evidence: 'nothing marks this as a small, obvious change',
    });
  }
  return { mode: 'plan', reasons };
}

/** Markdown for a reply or the CLI: the mode, then each reason. */
export function describeAssessment(assessment: Assessment): string {
  const lines = [`Assessment: **${assessment.mode} mode**.`, ''];
  for (const r of assessment.reasons) lines.push(`- ${r.mode}: ${r.trigger} — ${r.evidence}`);
  return lines.join('\n');
}
