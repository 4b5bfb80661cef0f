import { assessComplexity } from '../assess.js';
import type { Config } from '../config.js';
import { codeSpan, encodePath, escapeMarkdown } from '../markdown.js';
import { oneLine } from '../plan/text.js';
import type { Phase } from '../plan/checklist.js';
import { PLAN_FILES, phaseBranch, planNames, planPath, quickBranch } from '../plan/layout.js';
import { markPhase } from '../plan/mark.js';
import { appendLogEntry } from '../plan/masterLog.js';
import type { PlanContext, PlanFiles } from '../plan/validate.js';
import type { NodeId } from './flowchart.js';
import { afterLock, phaseToStart, type Answer } from './choose.js';
import { ciGateAtStart } from './ciGate.js';
import { agentHandOff, withAgent } from './handoff.js';
import { renderMarker, type LoopMarker, type RunState } from './marker.js';
import { vettedFits } from './record.js';
import {
  progressPhases,
  pullProgress,
  type ProgressInput,
  type ProgressPhase,
} from './progress.js';
import { reply } from './replies.js';
import {
  chooseAnyPlan,
  coderPlanNames,
  plansOfAnyKind,
  taskmasterFiles,
  treePaths,
} from './startKind.js';
import { plotKindPhase } from './startKindPlot.js';
import { phaseTitle } from './phaseName.js';
import type {
  Base,
  Early,
  FileChange,
  Orchestrator,
  Plotted,
  PullRequestText,
  StartEffect,
  StartRequest,
  StartSnapshot,
  StartStep,
} from './startSnapshot.js';

export interface PhaseStart {
  phase: Phase;
  branch: string;
  marker: LoopMarker;
  changes: FileChange[];
  message: string;
}

/**
 * MarkInProgress: every `[ ]` task of the current phase becomes `[~]` and "Coder started" is
 * appended to the master log — the file changes of the one start commit on the lock branch.
 */
export function markInProgress(
  config: Config,
  plan: PlanFiles,
  context: PlanContext & { current: Phase },
  who: Orchestrator,
  now: string,
): PhaseStart {
  const phase = context.current;
  const checklist = plan.files.get(PLAN_FILES.checklist)!;
  const marked = markPhase(checklist, phase, 'doing', ['todo']).source;
  const log = appendLogEntry(plan.files.get(PLAN_FILES.masterLog), {
    timestamp: now,
    event: 'Coder started',
    plan: plan.name,
    phase: { number: phase.number, name: phase.name },
    actor: who.actor,
    links: [{ label: `#${who.issue}`, url: who.issueUrl }],
  });
  const at = (file: string) => planPath(config.plansDir, plan.name, file);
  const changes: FileChange[] = [];
  if (marked !== checklist) changes.push({ path: at(PLAN_FILES.checklist), content: marked });
  changes.push({ path: at(PLAN_FILES.masterLog), content: log });
  const marker: LoopMarker = {
    mode: 'plan',
    plan: plan.name,
    phase: phase.number,
    issue: who.issue,
    ...(who.comment !== undefined ? { comment: who.comment } : {}),
    ...(who.run ? { run: { ...who.run, plan: plan.name } } : {}),
  };
  const title = phaseTitle(phase);
  return {
    phase,
    branch: phaseBranch(plan.name, phase.number),
    marker,
    changes,
    message: `coder-loop: ${plan.name} ${title} — Coder started\n\nMark the phase's tasks [~] and log "Coder started" (#${who.issue}).\n\n${renderMarker(marker)}\n`,
  };
}

/** Automatic PR per phase: the task plan, the tasks, the guidance links, `Refs #issue`. */
function phasePullRequest(
  config: Config,
  plan: PlanFiles,
  context: PlanContext,
  start: PhaseStart,
  repoUrl: string,
): PullRequestText {
  const { phase, branch } = start;
  const at = (file: string) => planPath(config.plansDir, plan.name, file);
  const link = (file: string) =>
    `[${oneLine(file)}](${repoUrl}/blob/${encodePath(branch)}/${encodePath(at(file))})`;
  const lines = [
    renderMarker(start.marker),
    // Plan, phase and task text come from the default branch, written by people with write
    // access: shown as the markdown they are. Untrusted text (comments, titles) is escaped.
    `Phase ${phase.number} of plan ${codeSpan(plan.name)}${phase.name ? `: ${oneLine(phase.name)}` : ''}.`,
    '',
    `Refs #${start.marker.issue}`,
    '',
    '### Tasks',
    '',
  ];
  for (const task of phase.tasks) {
    const box = task.state === 'done' ? '[x]' : '[~]';
    lines.push(`${'  '.repeat(task.depth)}- ${box} ${oneLine(task.text)}`);
  }
  lines.push('', '### Task plan', '');
  if (context.taskPlan) {
    lines.push(`From ${link(context.taskPlan)}:`, '');
    const text = plan.files.get(context.taskPlan) ?? '';
    lines.push(
      ...text
        .slice(0, 20_000)
        .split(/\r?\n/)
        .map((l) => `> ${l}`),
    );
  }
  lines.push('', '### Guidance', '');
  if (context.codemap) lines.push(`- Codemap: ${link(context.codemap)}`);
  for (const r of context.requirements) lines.push(`- Requirements: ${link(r)}`);
  lines.push(
    `- Context: ${link(PLAN_FILES.context)}`,
    `- Checklist: ${link(PLAN_FILES.checklist)}`,
  );
  lines.push(
    '',
    '### How this pull request moves',
    '',
    `Push the implementation to ${codeSpan(branch)}, test first. CI on this pull request is the verification gate (up to ${config.maxRetries} failed attempts before escalation); an approving review marks the tasks \`[x]\`, writes the phase report and updates the context and the master log. The \`coder-loop\` check shows where the phase stands.`,
  );
  return { title: `[coder] ${plan.name}: ${phaseTitle(phase)}`, body: lines.join('\n') };
}

// ——— The start side as one decision: snapshot in, the next read, write or the effects out ———

/**
 * Start (seed 002), both modes: Context valid? → Locked? → Mark [~] (one commit, which the lock
 * ref is created on) → the automatic PR → the reply, the `coder-loop` check run and, with an
 * agent, the hand-off. Called again with each answer until it is `done`.
 */
export function decideStart(req: StartRequest, snap: StartSnapshot): StartStep {
  if (!snap.base) return { need: 'base' };
  const gate = ciGateAtStart(req.loopWorkflow, snap.base.files, snap.texts);
  if ('need' in gate) return gate;
  const plotted =
    req.mode === 'plan' ? plotPhase(req, snap, snap.base) : plotQuick(req, snap, snap.base);
  if (!('marker' in plotted)) return plotted;
  const { branch, outcome } = plotted;
  const say = (body: string) => ({ kind: 'reply' as const, to: req.who.issue, body });

  if (snap.commit === undefined)
    return {
      write: 'commit',
      parent: { sha: snap.base.sha, tree: snap.base.tree },
      changes: plotted.changes,
      message: plotted.message,
    };
  if (!snap.lock) return { write: 'createLockRef', branch, sha: snap.commit };
  if (!snap.lock.acquired) {
    if (!snap.holder) return { need: 'holder', branch, sha: snap.lock.sha };
    const { pr } = snap.holder;
    const next = afterLock({
      acquired: false,
      pr: pr !== undefined,
      holder: snap.holder.comment,
      comment: req.who.comment,
      via: req.via,
    });
    const withPr = pr ? { pullRequest: pr.number } : {};
    if (next === 'done')
      return {
        // A repeated label or a redelivered event finds its own run going: nothing to say.
        done: { ...outcome, state: 'already-started', ...withPr },
        effects: [],
        note: `${req.via === 'label' ? 'the quick label' : `comment ${req.who.comment}`} was handled already: ${branch}${pr ? `, PR #${pr.number}` : ''}`,
      };
    if (next === 'locked')
      return {
        done: { ...outcome, state: 'locked', node: 'LockCheck', ...withPr },
        effects: [say(plotted.locked(pr))],
        ...(req.mode === 'plan' && req.who.run && pr ? { held: pr.number } : {}),
      };
    // `finish`: this command's earlier delivery took the lock and stopped before the PR.
  }
  const sha = snap.lock.acquired ? snap.commit : snap.lock.sha;
  if (!snap.pull)
    return { write: 'openPull', head: branch, base: req.defaultBranch, ...plotted.pull };
  const pr = snap.pull;
  if (!pr.created)
    // A twin delivery of this command (the two raced past the lock) opened the PR: it replies.
    return {
      done: { ...outcome, state: 'already-started', pullRequest: pr.number },
      effects: [],
      note: `comment ${req.who.comment}: ${branch} got its PR #${pr.number} from another delivery`,
    };
  // TDD: handed to the coding agent when one is configured (SPEC §9).
  const handOff = agentHandOff(req.config, {
    node: 'tdd',
    repo: req.repo,
    branch,
    headSha: sha,
    pullRequest: pr.number,
    marker: plotted.marker,
    attempt: 1,
  });
  const run = plotted.marker.run;
  const progress: StartEffect[] =
    run && plotted.marker.phase !== undefined && req.mode === 'plan'
      ? [
          {
            kind: 'progress',
            progress: startProgress(
              run,
              plotted.marker,
              plotted.phases ?? progressPhases(snap.plan?.context.checklist?.phases ?? []),
              pr.number,
              plotted.view.node as NodeId | undefined,
            ),
            ...(run.progress !== undefined ? { id: run.progress } : {}),
          },
        ]
      : [];
  return {
    done: { ...outcome, pullRequest: pr.number },
    effects: [
      say(
        (gate.note ? `${plotted.started(pr)}\n\n${gate.note}` : plotted.started(pr)) +
          (req.shared ? reply.sharedIdentity() : ''),
      ),
      ...progress,
      {
        kind: 'check',
        sha,
        branch,
        view: withAgent(plotted.view, handOff, req.repoUrl),
        // The loop's first record of the PR; a quick task keeps the issue's text as the permitted
        // user saw it when they acted: the agent's assignment, whatever the issue says later.
        record: {
          ...plotted.marker,
          pr: pr.number,
          branch,
          ...(req.mode === 'quick'
            ? { vetted: { title: req.issue.title, body: req.issue.body ?? '' } }
            : {}),
        },
      },
      ...(handOff ? [{ kind: 'dispatch' as const, payload: handOff }] : []),
    ],
  };
}

/**
 * The progress comment as a run's phase starts: the PR side's view of its fresh record (nothing
 * spent yet), with the plan's phases as the default branch has them.
 */
function startProgress(
  run: RunState,
  marker: LoopMarker,
  phases: ProgressPhase[],
  pr: number,
  node: NodeId | undefined,
): ProgressInput {
  return { ...pullProgress(marker, run, pr, node), phases };
}

/** Plan mode: Start → the plan → Context valid? → the current phase, and what starting it writes. */
function plotPhase(
  req: StartRequest & { mode: 'plan' },
  snap: StartSnapshot,
  base: Base,
): Plotted | Early {
  const { config, who } = req;
  const answer = (a: Answer) => ({
    done: a.outcome,
    effects: [{ kind: 'reply' as const, to: who.issue, body: a.reply }],
  });
  // Every kind's plans (SPEC §2b): a Task Master file's tags name its plans, so it is read first.
  const paths = treePaths(base.files);
  const unread = taskmasterFiles(config, paths).filter((p) => !snap.texts?.has(p));
  if (unread.length > 0) return { need: 'texts', paths: unread };
  const texts = snap.texts ?? new Map<string, string>();
  const any = chooseAnyPlan(
    config.plansDir,
    plansOfAnyKind(config, paths, coderPlanNames(config, paths), texts).plans,
    req.plan,
  );
  if ('reply' in any) return answer(any);
  if (any.kind === 'other') return plotKindPhase(req, base, any.plan, any.label, texts);
  const chosen = { plan: any.name };
  if (!snap.plan) return { need: 'plan', plan: chosen.plan, plansDir: config.plansDir };
  const { files } = snap.plan;
  const phase = phaseToStart(chosen.plan, snap.plan.context);
  if ('reply' in phase) return answer(phase);
  const { context } = phase;
  const start = markInProgress(config, files, context, who, req.now);
  const at = (file: string) => planPath(config.plansDir, files.name, file);
  const current = context.current;
  return {
    branch: start.branch,
    marker: start.marker,
    changes: start.changes,
    message: start.message,
    pull: phasePullRequest(config, files, context, start, req.repoUrl),
    outcome: {
      state: 'started',
      node: 'TDD',
      mode: 'plan',
      plan: files.name,
      phase: current.number,
      branch: start.branch,
    },
    locked: (pr) => reply.locked(files.name, current, start.branch, pr),
    started: (pr) => reply.started(files.name, current, start.branch, pr),
    view: {
      mode: 'plan',
      node: 'TDD',
      title: `Phase ${current.number}: implementation (TDD)`,
      next: 'Write a failing test, then the minimal code, and push both to this branch. CI on the pull request is the verification gate.',
      links: [
        ...(context.taskPlan ? [{ label: 'Task plan', path: at(context.taskPlan) }] : []),
        { label: 'Checklist', path: at(PLAN_FILES.checklist) },
        ...(context.codemap ? [{ label: 'Codemap', path: at(context.codemap) }] : []),
        ...context.requirements.map((r) => ({ label: r.split('/').pop()!, path: at(r) })),
      ],
    },
  };
}

/**
 * Quick mode (the seed's "Simple/Quick" branch): lock branch `coder/quick/issue-N`, a PR that
 * says `Fixes #N`, CI as the only gate. No plan file changes, except one master-log entry when
 * `quick.log` is on and the repository has exactly one plan (Plan exists? → Optionally log).
 */
function plotQuick(
  req: StartRequest & { mode: 'quick' },
  snap: StartSnapshot,
  base: Base,
): Plotted | Early {
  const { config, who, issue } = req;
  const branch = quickBranch(issue.number);
  // The issue's text is the agent's assignment, kept whole in the record: one too long for it is
  // refused before anything is written, never cut.
  if (!vettedFits({ title: issue.title, body: issue.body ?? '' }))
    return {
      done: { state: 'invalid', mode: 'quick', reason: 'the issue is too long for quick mode' },
      effects: [
        {
          kind: 'reply',
          to: who.issue,
          body: reply.issueTooLong(issue.title.length, (issue.body ?? '').length),
        },
      ],
    };
  const changes: FileChange[] = [];
  const plans = config.quick.log ? planNames(base.files.keys(), config.plansDir) : [];
  if (plans.length === 1) {
    const path = planPath(config.plansDir, plans[0]!, PLAN_FILES.masterLog);
    const sha = base.files.get(path);
    if (sha !== undefined && !snap.masterLog) return { need: 'masterLog', sha };
    changes.push({
      path,
      content: appendLogEntry(snap.masterLog?.text, {
        timestamp: req.now,
        event: 'Quick mode started',
        plan: plans[0]!,
        actor: who.actor,
        links: [{ label: `#${issue.number}`, url: who.issueUrl }],
      }),
    });
  }
  const marker: LoopMarker = {
    mode: 'quick',
    issue: issue.number,
    ...(who.comment !== undefined ? { comment: who.comment } : {}),
  };
  const assessment = assessComplexity({ title: issue.title, body: issue.body ?? '' }, config.quick);
  return {
    branch,
    marker,
    changes,
    message: `coder-loop: quick mode for #${issue.number}\n\n${renderMarker(marker)}\n`,
    pull: {
      title: `[coder] Quick: ${issue.title}`.slice(0, 256),
      body: [
        renderMarker(marker),
        `Quick mode for #${issue.number}: ${escapeMarkdown(issue.title)}`,
        '',
        `Fixes #${issue.number}`,
        '',
        `Push the fix to \`${branch}\`. CI is the gate ("Run basic tests"); there is no plan bookkeeping. A change larger than ${config.quick.maxFiles} file(s) or ${config.quick.maxLines} lines is better done in plan mode.`,
      ].join('\n'),
    },
    outcome: { state: 'started', node: 'QuickMode', mode: 'quick', branch },
    locked: (pr) => reply.quickLocked(branch, pr),
    started: (pr) => reply.quickStarted(branch, pr, assessment),
    view: {
      mode: 'quick',
      node: 'QuickMode',
      title: 'Quick mode: implementation',
      next: 'Push the fix to this branch; CI is the gate.',
    },
  };
}
