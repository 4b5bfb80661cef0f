import { assessComplexity } from '../../assess.js';
import { escapeMarkdown } from '../../markdown.js';
import { PLAN_FILES, planNames, planPath, quickBranch } from '../../plan/layout.js';
import { appendLogEntry } from '../../plan/masterLog.js';
import type { NodeId } from '../flowchart.js';
import { afterLock, type Answer } from '../phasePlan/choose.js';
import { ciGateAtStart } from './ciGate.js';
import { agentHandOff, withAgent } from '../record/handoff.js';
import { renderMarker, type LoopMarker, type RunState } from '../record/marker.js';
import { openToStart } from '../phasePlan/openPlan.js';
import { markInProgress, pullRequest } from '../phasePlan/phasePlan.js';
import { withLoopFiles } from './planChanges.js';
import { vettedFits } from '../record/record.js';
import { pullProgress, type ProgressInput, type ProgressPhase } from '../record/progress.js';
import { reply } from '../messages/replies.js';
import {
  chooseAnyPlan,
  plansOfAnyKind,
  planDiscoveryReads,
  treePaths,
  warningsNote,
} from '../phasePlan/startKind.js';
import type {
  Base,
  Early,
  FileChange,
  Orchestrator,
  Plotted,
  StartEffect,
  StartRequest,
  StartSnapshot,
  StartStep,
} from '../snapshot/startSnapshot.js';

// ——— The start side as one decision: snapshot in, the next read, write or the effects out ———

/**
 * Start (seed 002), both modes: Context valid? → Locked? → Mark [~] (one commit, which the lock
 * ref is created on) → the automatic PR → the reply, the `coder-loop` check run and, with an
 * agent, the hand-off. Called again with each answer until it is `done`.
 */
export function decideStart(req: StartRequest, snap: StartSnapshot): StartStep {
  const step = decide(req, snap);
  return req.note !== undefined && 'done' in step ? withNote(step, req) : step;
}

/** A start's last step with `req.note` said last in its reply, or in a reply of its own. */
function withNote(step: Extract<StartStep, { done: unknown }>, req: StartRequest): StartStep {
  const note = req.note!;
  const at = step.effects.findIndex((e) => e.kind === 'reply');
  const effects =
    at === -1
      ? [{ kind: 'reply' as const, to: req.who.issue, body: note }, ...step.effects]
      : step.effects.map((e, i) =>
          i === at && e.kind === 'reply' ? { ...e, body: `${e.body}\n\n${note}` } : e,
        );
  return { ...step, effects };
}

function decide(req: StartRequest, snap: StartSnapshot): StartStep {
  if (!snap.base) return { need: 'base' };
  const gate = ciGateAtStart(req.loopWorkflow, snap.base.files, snap.texts);
  if ('need' in gate) return gate;
  const plotted =
    req.mode === 'plan' ? plotPhase(req, snap, snap.base) : plotQuick(req, snap, snap.base);
  if (!('marker' in plotted)) return plotted;
  const { branch, outcome } = plotted;
  const say = (body: string) => ({ kind: 'reply' as const, to: req.who.issue, body });

  const unread = plotted.unread ?? [];
  if (snap.commit === undefined)
    return {
      write: 'commit',
      parent: { sha: snap.base.sha, tree: snap.base.tree },
      changes: plotted.changes,
      message: plotted.message,
      ...(unread.length ? { alongside: unread } : {}),
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
  // Read beside the commit; asked for here only by a shell that did not.
  if (!snap.pull && unread.length) return { need: 'texts', paths: unread };
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
              plotted.phases ?? [],
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
          base: req.defaultBranch,
          ...(req.mode === 'quick'
            ? { vetted: { title: req.issue.title, body: req.issue.body ?? '' } }
            : {}),
          // The bytes the start commit wrote, when this delivery's commit is the branch's (an
          // earlier delivery's start commit, `finish`, wrote its own: none are claimed then).
          ...(snap.lock.acquired && plotted.changes.length
            ? { loopFiles: withLoopFiles(undefined, plotted.changes) }
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

/**
 * Plan mode, for every kind: Start → the plan → its files read → Context valid? (file:line) → the
 * current phase → the kind's in-progress marks and "Coder started" in the master log (one start
 * commit) → the phase PR with the context the kind has.
 */
function plotPhase(
  req: StartRequest & { mode: 'plan' },
  snap: StartSnapshot,
  base: Base,
): Plotted | Early {
  const { config, who } = req;
  // Every kind's plans (SPEC §2b): a tagged kind's file names its plans, and a tool's config
  // where its tasks file is, so they are read first.
  const paths = treePaths(base.files);
  // A tool's config is read too, to name a plan it places where the loop does not run it.
  const unread = planDiscoveryReads(config, paths, true).filter((p) => !snap.texts?.has(p));
  if (unread.length > 0) return { need: 'texts', paths: unread };
  const texts = snap.texts ?? new Map<string, string>();
  const runnable = plansOfAnyKind(config, paths, texts).plans;
  const any = chooseAnyPlan(config.plansDir, runnable, req.plan, req.cli);
  if ('reply' in any) {
    const placed = plansOfAnyKind(config, paths, texts, undefined, true)
      .plans.filter((p) => p.kind === 'other' && !runnable.some((r) => r.ref === p.ref))
      .map((p) => p.ref);
    return answer(
      who,
      placed.length > 0 ? { ...any, reply: any.reply + reply.placedUnguarded(placed) } : any,
    );
  }
  const opened = openToStart(config, any, snap, base, texts);
  if ('need' in opened) return opened;
  const plan = opened.open;
  const warnings = warningsNote(plan.warnings);
  const chosen = plan.toStart(req.cli);
  if ('reply' in chosen) return answer(who, { ...chosen, reply: chosen.reply + warnings });
  const { phase } = chosen;
  const start = markInProgress(plan, phase, who, req.now);
  const { branch } = start;
  return {
    branch,
    marker: start.marker,
    changes: start.changes,
    message: start.message,
    pull: pullRequest(config, plan, phase, start, req.repoUrl),
    outcome: {
      state: 'started',
      node: 'TDD',
      mode: 'plan',
      plan: plan.label,
      phase: start.marker.phase!,
      branch,
    },
    // The run's progress comment lists the plan's phases in the kind's own order.
    phases: plan.progress(),
    unread: plan.pullReads(),
    locked: (pr) => reply.locked(plan.label, phase, branch, pr),
    started: (pr) => plan.started(phase, branch, pr) + warnings,
    view: {
      mode: 'plan',
      node: 'TDD',
      title: `Phase ${phase.number}: implementation (TDD)`,
      next: 'Write a failing test, then the minimal code, and push both to this branch. CI on the pull request is the verification gate.',
      links: plan.links(phase),
    },
  };
}

function answer(who: Orchestrator, a: Answer): Early {
  return { done: a.outcome, effects: [{ kind: 'reply', to: who.issue, body: a.reply }] };
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
