import type { Assessment } from '../../assess.js';
import { CLI_NAME } from '../../cliCommand.js';
import { HELP_TEXT } from '../../command.js';
import { codeSpan, escapeMarkdown } from '../../markdown.js';
import { formatProblem, type Problem } from '../../problem.js';
import { phaseTitle } from './phaseName.js';

/** A phase as a reply names it: its number (`3`, `3.1` for a nested phase) and name. */
type PhaseName = { number: number | string; name: string };

/** Every reply the loop posts, in one place: the orchestrator's side of the flowchart. */

/**
 * Problems as a reply lists them: one code span per problem, its place and its fix (a CLI command
 * it names said as users run the CLI here, `cli`).
 */
export const problemList = (problems: readonly Problem[], cli: string = CLI_NAME) =>
  problems.map((p) => `- ${codeSpan(formatProblem(p, cli))}`).join('\n');

/**
 * An error's message as a clause of a reply's sentence: escaped, its own closing full stop (most
 * of the loop's errors end with one) dropped, as the sentence around it ends with its own.
 */
function asClause(message: string): string {
  const text = message.trimEnd();
  let end = text.length;
  while (end > 0 && text[end - 1] === '.') end--;
  return escapeMarkdown(text.slice(0, end));
}

export const reply = {
  help: (): string => HELP_TEXT,

  unknown: (verb: string): string =>
    `Unknown command ${codeSpan(`/coder ${verb}`)}.\n\n${HELP_TEXT}`,

  // The reasons are the loop's own words (checkPlanName), never the commenter's text.
  invalid: (reason: string): string => `That command cannot be run: ${reason}.`,

  notPermitted: (login: string): string =>
    `@${login}, coder-loop takes commands only from people with write access to this repository.`,

  configInvalid: (problems: readonly Problem[]): string =>
    `The coder-loop config is invalid, so nothing was done:\n\n${problemList(problems)}`,

  /** `cli`: how users run the CLI here (cliCommand.ts), so the command runs as printed. */
  /** Plans a tool's config places where the `plans` globs do not look: found, not run. */
  placedUnguarded: (refs: readonly string[]): string =>
    `\n\nA tool's config places ${refs.length === 1 ? 'a plan' : 'plans'} at ${refs.map((r) => codeSpan(r)).join(', ')}: the loop runs ${refs.length === 1 ? 'it' : 'them'} once ${codeSpan('plans')} in ${codeSpan('.github/coder.yml')} names ${refs.length === 1 ? 'it' : 'them'} (with the repository's other plans), as those globs also keep a plan's documents an architect's on a pull request.`,

  noPlans: (plansDir: string, cli: string = CLI_NAME): string =>
    `There is no plan under ${codeSpan(plansDir)} on the default branch. Create one with ${codeSpan(`${cli} init "My Plan"`)}, commit it, then run ${codeSpan('/coder next')}.`,

  choosePlan: (plans: readonly string[]): string =>
    `Which plan? Run ${codeSpan('/coder next <PlanName>')} with one of:\n\n${plans.map((p) => `- ${codeSpan(p)}`).join('\n')}`,

  /** Two plans (of any kinds) share the name asked for: nothing is written. */
  twoPlansNamed: (name: string, paths: readonly string[]): string =>
    `Two plans are named ${codeSpan(name)}; nothing was written. Name one by the path of its tasks file:\n\n${paths.map((p) => `- ${codeSpan(`/coder next ${p}`)}`).join('\n')}`,

  /** A tasks file that holds several plans (a tagged kind's), asked for by its path alone. */
  tagsInFile: (path: string, refs: readonly string[]): string =>
    `${codeSpan(path)} holds ${refs.length} plans, one a tag; nothing was written. Name one:\n\n${refs.map((r) => `- ${codeSpan(`/coder next ${r}`)}`).join('\n')}`,

  noSuchPlan: (name: string, plans: readonly string[]): string =>
    `There is no plan ${codeSpan(name)}.${plans.length ? ` Plans: ${plans.map(codeSpan).join(', ')}.` : ''}`,

  /** Two plans whose names make one lock branch: neither may start until one is renamed. */
  slugConflict: (name: string, other: string, branch: string, cli: string = CLI_NAME): string =>
    `**Plan required.** Plans ${codeSpan(name)} and ${codeSpan(other)} would share the lock branch ${codeSpan(branch)}; nothing was written. Rename one of them (${codeSpan(`${cli} lint`)} reports it too).`,

  /** ValidateContext → No: "Return to Orchestrator: Plan Required". */
  planRequired: (plan: string, problems: readonly Problem[], cli: string = CLI_NAME): string =>
    `**Plan required.** Plan ${codeSpan(plan)} is not ready for the loop; nothing was written. Fix these and run ${codeSpan(`/coder next ${plan}`)} again:\n\n${problemList(
      problems.filter((p) => p.severity === 'error'),
      cli,
    )}`,

  planComplete: (plan: string): string =>
    `Plan ${codeSpan(plan)} is complete: every task of every phase is done.`,

  /** Work is left and none of it can start: a block or a dependency a person decides on. */
  planWaiting: (plan: string, why: string): string =>
    `Plan ${codeSpan(plan)} is not complete, but no phase can start: ${escapeMarkdown(why)} Nothing was written; once a task can start, ${codeSpan(`/coder next ${plan}`)} takes it.`,

  /** LockCheck → Yes: "Return to Orchestrator: Select Next Item". */
  locked: (plan: string, phase: PhaseName, branch: string, pr?: { number: number }): string =>
    `**Locked.** ${phaseTitle(phase)} of ${codeSpan(plan)} is already taken: branch ${codeSpan(branch)}${pr ? `, pull request #${pr.number}` : ' (no pull request yet)'}. Select the next item, or ${codeSpan('/coder release')} it.`,

  started: (plan: string, phase: PhaseName, branch: string, pr: { number: number }): string =>
    `**Coder started** on ${phaseTitle(phase)} of ${codeSpan(plan)}: tasks marked \`[~]\` on branch ${codeSpan(branch)}, pull request #${pr.number}. Push the implementation there, test first; CI is the gate and a review completes the phase.`,

  /** A phase of another kind started: its own in-progress mark (some kinds have none). */
  kindStarted: (
    plan: string,
    phase: PhaseName,
    branch: string,
    pr: { number: number },
    marks: { mark: string | undefined; on?: string | undefined; path: string; tool: string },
  ): string =>
    `**Coder started** on ${phaseTitle(phase)} of ${codeSpan(plan)}: ${marks.mark ? `${marks.on ?? 'tasks'} marked ${codeSpan(marks.mark)} in ${codeSpan(marks.path)}` : `${codeSpan(marks.path)} is left as it is (${marks.tool} has no in-progress mark: this branch and its pull request are the record)`} on branch ${codeSpan(branch)}, pull request #${pr.number}. Push the implementation there, test first; CI is the gate and a review completes the phase.`,

  quickStarted: (branch: string, pr: { number: number }, assessment: Assessment): string => {
    const lines = [
      `**Quick mode**: branch ${codeSpan(branch)}, pull request #${pr.number}. CI is the gate; no plan bookkeeping.`,
    ];
    if (assessment.mode === 'plan') {
      lines.push(
        '',
        'The assessment would have chosen **plan mode**; proceeding because quick mode was asked for:',
        '',
        ...assessment.reasons
          .filter((r) => r.mode === 'plan')
          .map((r) => `- ${escapeMarkdown(r.trigger)}: ${escapeMarkdown(r.evidence)}`),
      );
    }
    return lines.join('\n');
  },

  issueTooLong: (title: number, body: number): string =>
    `The issue’s text is too long for quick mode (a title of ${title.toLocaleString('en-US')} and a body of ${body.toLocaleString('en-US')} characters): the loop keeps the issue’s text, as it is now, as the task, and this one does not fit. Shorten the issue (or link to a document with the details), then ask again; or put the work in a plan.`,

  quickLocked: (branch: string, pr?: { number: number }): string =>
    `Quick mode is already running for this issue: branch ${codeSpan(branch)}${pr ? `, pull request #${pr.number}` : ''}.`,

  assessment: (assessment: Assessment, cli: string = CLI_NAME): string => {
    const lines = [
      `**Assessment: ${assessment.mode} mode.**`,
      '',
      ...assessment.reasons.map(
        (r) => `- ${r.mode}: ${escapeMarkdown(r.trigger)} — ${escapeMarkdown(r.evidence)}`,
      ),
      '',
    ];
    if (assessment.mode === 'quick') {
      lines.push(`Run ${codeSpan('/coder quick')} (or add the quick label) to start it.`);
    } else {
      lines.push(
        `To do it in plan mode, put the work into a plan: add a phase with its tasks to a checklist under the plans folder (or create a plan with ${codeSpan(`${cli} init "My Plan"`)}), give the phase a task plan, merge that, then run \`/coder next\`.`,
      );
    }
    return lines.join('\n');
  },

  released: (branch: string, pr?: { number: number }): string =>
    `Released: ${pr ? `pull request #${pr.number} closed and ` : ''}branch ${codeSpan(branch)} deleted. The phase is free again; nothing on the default branch changed.`,

  nothingToRelease: (): string => 'There is no coder-loop lock for this issue to release.',

  failed: (command: string, message: string): string =>
    `${codeSpan(command)} could not finish: ${asClause(message)}. Every step the loop takes is safe to repeat: run the command again; if a branch was left without its pull request, ${codeSpan('/coder release')} frees it.`,

  /** The quick label's start that could not finish. */
  labelFailed: (label: string, message: string): string =>
    `Quick mode for the ${codeSpan(label)} label could not finish: ${asClause(message)}. Every step the loop takes is safe to repeat: remove the label and add it again; if a branch was left without its pull request, ${codeSpan('/coder release')} frees it.`,

  /** A webhook the loop could not finish handling (GitHub failed or did not answer). */
  eventFailed: (what: string, pr: number, message: string): string =>
    `The loop could not finish handling ${what} on pull request #${pr}: ${asClause(message)}. Nothing was left half-done; ${codeSpan('/coder retry')} evaluates the pull request again.`,

  noLoopPullRequest: (): string => 'There is no open coder-loop pull request for this issue.',

  /** `/coder stop` on a phase PR of a run. */
  runStopped: (pr: number, plan: string): string =>
    `Stopped the run of plan ${codeSpan(plan)}: pull request #${pr} stays as it is, and no phase starts after it. \`/coder run\` goes on.`,

  /** `/coder stop` while a hand-off to the coding agent was in flight: it ends with the run. */
  handOffEnded: (pr: number): string =>
    `The coding agent's hand-off on #${pr} ends too: what it is working on now is not applied, and the pull request waits for a push (a red CI result on it hands the fix on again).`,

  /** `/coder run` with the current phase's PR open and no run on it: the run goes on from there. */
  runResumed: (pr: number, plan: string, phase: number | undefined): string =>
    `**Run resumed** on plan ${codeSpan(plan)}: phase ${phase ?? '?'} is open as pull request #${pr}, which stays as it is; once it is merged, the next phase starts by itself.`,

  /** `/coder run` where the current phase's PR already belongs to a run. */
  runGoing: (pr: number, plan: string): string =>
    `The run of plan ${codeSpan(plan)} is going already: pull request #${pr}.`,

  /** The progress comment's headline once `/coder stop` ended the run. */
  progressStopped: (pr: number): string =>
    `Stopped with \`/coder stop\`: pull request #${pr} stays as it is, and no phase starts after it. \`/coder run\` goes on.`,

  /** `/coder stop` where no open phase PR belongs to a run. */
  noRun: (pr: number): string =>
    `Pull request #${pr} is not part of a run (\`/coder run\`); nothing to stop.`,

  /** Verification → Fail: "Debug & Fix", attempt k of N. */
  ciFailed: (
    pr: number,
    attempt: number,
    of: number,
    failing: readonly { name: string; conclusion: string | null; url?: string }[],
    reason?: string,
  ): string =>
    [
      `**CI failed** on pull request #${pr} — attempt ${attempt} of ${of}. Back to implementation (Debug & Fix).`,
      '',
      ...(reason ? [`- ${reason}`] : []),
      ...failing.map(
        (c) =>
          `- ${c.url ? `[${escapeMarkdown(c.name)}](${c.url})` : escapeMarkdown(c.name)}: ${c.conclusion ?? 'failed'}`,
      ),
    ].join('\n'),

  /** A failed agent run (no commit, so no CI ran on it): what failed, attempt k of N. */
  agentFailed: (pr: number, attempt: number, of: number, reason: string): string =>
    `**The coding agent's run failed** on pull request #${pr} — attempt ${attempt} of ${of}; it made no commit, so no CI ran. ${reason.replace(/\.?$/, '.')} Back to implementation (Debug & Fix).`,

  /** Triage: an infrastructure failure again on the same head, re-run by the loop. */
  infrastructure: (
    pr: number,
    failing: readonly { name: string; conclusion: string | null; url?: string }[],
    rerun: boolean,
  ): string =>
    [
      `**CI failed again for a reason outside the code** on pull request #${pr}: infrastructure (cancelled, never started, or failed before any of the project's steps ran). No attempt is counted. ${rerun ? 'The loop re-runs it once more.' : ''}`.trimEnd(),
      '',
      ...failing.map(
        (c) =>
          `- ${c.url ? `[${escapeMarkdown(c.name)}](${c.url})` : escapeMarkdown(c.name)}: ${c.conclusion ?? 'failed'}`,
      ),
    ].join('\n'),

  /** Triage: an infrastructure failure whose re-run GitHub refused (`refusal`: quoted). */
  rerunRefused: (
    pr: number,
    failing: readonly { name: string; conclusion: string | null; url?: string }[],
    refusal: string,
  ): string =>
    [
      `**CI failed for a reason outside the code** on pull request #${pr}: infrastructure (cancelled, never started, or failed before any of the project's steps ran). The loop asked GitHub to re-run it, and GitHub refused: ${refusal}. No attempt is counted. Re-run it on GitHub or push to the branch (CI's new verdict decides), or \`/coder retry\` to hand it to Debug & Fix as a failure.`,
      '',
      ...failing.map(
        (c) =>
          `- ${c.url ? `[${escapeMarkdown(c.name)}](${c.url})` : escapeMarkdown(c.name)}: ${c.conclusion ?? 'failed'}`,
      ),
    ].join('\n'),

  /** Triage: checks that failed and passed on a re-run of the same head. */
  flaky: (pr: number, names: readonly string[]): string =>
    `**Flaky** on pull request #${pr}: ${names.map((n) => codeSpan(n)).join(', ')} failed, then passed on a re-run of the same head. No attempt is counted; the phase report lists ${names.length === 1 ? 'it' : 'them'}.`,

  /** Verification → Pass: on to Code Review. */
  ciPassed: (pr: number, reviewers: readonly string[], spec?: boolean): string =>
    `**CI passed** on pull request #${pr}. Code review${reviewers.length ? ` requested from ${reviewers.map((r) => `@${r}`).join(', ')}` : ' is next'}: an approval completes the phase.${spec ? '\n\nEach task of the phase and its evidence (Passes Spec?) are in the `coder-loop` check run of the head.' : ''}`,

  /** Passes Spec? said no: Revise Code, with the tasks that lack evidence. */
  specMissing: (pr: number, attempt: number, of: number, missing: readonly string[]): string =>
    [
      `**Passes Spec? no** on pull request #${pr} — attempt ${attempt} of ${of}. Back to implementation (Revise Code): these lack evidence in the pull request.`,
      '',
      ...missing.map((m) => `- ${m}`),
      '',
      'The `coder-loop` check run of the head shows every task and its evidence.',
    ].join('\n'),

  changesRequested: (pr: number, reviewer: string): string =>
    `**Changes requested** on pull request #${pr} by @${reviewer}. Back to implementation.`,

  /** A loop PR whose base was switched (`baseProblem`): nothing is judged until it is set back. */
  baseSwitched: (pr: number, actual: string, expected: string): string =>
    `Pull request #${pr} now targets \`${actual}\`, not \`${expected}\`, the branch the loop opened it against. Against another base GitHub shows another diff, so the loop judges nothing here — no CI verdict, no review, no completion, no merge — until the base is set back to \`${expected}\`.`,

  staleApproval: (pr: number, reviewed: string, head: string): string =>
    `The approval on pull request #${pr} is for \`${reviewed.slice(0, 7)}\`, but the head is now \`${head.slice(0, 7)}\`. Nothing was done; approve the current head.`,

  /**
   * Approvals of a branch a workflow or an app pushed to (GitHub names its bot, not who ran it):
   * none counts, since the approver may be the pusher. `who`: those bots; `?`: the record of
   * the branch's pushes could not be read whole.
   */
  automationPushed: (pr: number, who: readonly string[]): string =>
    `The approval on pull request #${pr} does not count: ${
      who.includes('?')
        ? "GitHub's record of the pushes to this branch is too long to read whole, so the loop cannot tell who pushed"
        : `${who.map((w) => `@${w}`).join(', ')} (a workflow or an app, not the loop) pushed to this branch, and GitHub does not name who ran it`
    }: no approval can be told apart from the pusher's own. Nothing was done. Set \`allowSelfApproval: true\` to accept it, or \`/coder release\` and start the phase again.`,

  /** An approval from a permitted user that does not count: the reason (SPEC §3.8). */
  approvalNotCounted: (pr: number, why: string): string =>
    `The approval on pull request #${pr} does not count: ${why}. Nothing was done; an approval from another person with write access completes the phase.`,

  /**
   * Said with a start when the loop acts with a workflow's default `GITHUB_TOKEN`: every writer's
   * workflow acts as the same `github-actions[bot]`, so the loop cannot tell its own record from
   * theirs, and refuses what depends on that.
   */
  sharedIdentity: (): string =>
    "\n\n> [!WARNING]\n> This loop runs on the workflow's default `GITHUB_TOKEN`: every writer's workflow acts as `github-actions[bot]`, the loop's identity, and can write what looks like the loop's record. So the loop merges nothing (`autoMerge` is off) and completes no phase that needs an architect (locked paths, plan documents, an escalation): review and merge those by hand. An App token in an environment limited to the default branch lifts this (docs/security.md).",

  /** An approval the loop cannot act on with a shared identity: an architect's call, made by hand. */
  sharedIdentityArchitect: (pr: number, why: string): string =>
    `Pull request #${pr} needs an architect (${why}), and this loop runs on the default \`GITHUB_TOKEN\`, whose identity every writer's workflow shares: the loop cannot vouch for its record, so it does not complete the phase. An architect reviews and merges it by hand; an App token lifts this (docs/security.md).`,

  /** An architect approved an escalated head whose CI has not passed: the escalation stays. */
  architectApprovalBeforeGate: (pr: number, architect: string): string =>
    `@${architect}'s approval on pull request #${pr} is noted, but CI has not passed on its head (or a task of the phase lacks evidence: Passes Spec?), so the escalation stays. Push a fix, then \`/coder resume\`.`,

  /** A list the verdict needs cannot be read whole (GitHub's caps): not passed, and why. */
  tooLargeToJudge: (pr: number, why: string): string =>
    `**Not passed:** pull request #${pr} is too large to judge. ${why}`,

  /** The completion commit was not written: the branch moved after the approved head. */
  branchMoved: (pr: number, approved: string, head: string): string =>
    `The approval on pull request #${pr} was for \`${approved.slice(0, 7)}\`, but the branch moved to \`${head.slice(0, 7)}\` before the loop could complete the phase. Nothing was written: the new head needs CI and an approval.`,

  approvalBeforeGate: (pr: number): string =>
    `Approval on pull request #${pr} noted, but CI has not passed on its head yet. The phase completes when it does.`,

  escalated: (
    pr: number,
    architects: readonly string[],
    reason: string,
    details: readonly string[],
  ): string =>
    [
      `**Escalated to architect** (pull request #${pr}): ${reason}.`,
      '',
      ...details.map((d) => `- ${d}`),
      '',
      architects.length
        ? `${architects.map((a) => `@${a}`).join(', ')}: please review. Nothing advances by itself until someone with write access runs \`/coder resume\`.`
        : 'No architects are configured (`architects` in .github/coder.yml). Nothing advances by itself until someone with write access runs `/coder resume`.',
    ].join('\n'),

  completing: (pr: number, phase: PhaseName): string =>
    `**${phaseTitle(phase)} approved**: tasks marked \`[x]\`, the phase report written, the checkpoint and master log updated in one commit on pull request #${pr}. Final verification (CI) runs on it now.`,

  phaseComplete: (
    plan: string,
    phase: number,
    pr: number,
    next: { number: number } | undefined,
    merged: boolean,
  ): string =>
    `**Phase ${phase} complete** (${codeSpan(plan)}, pull request #${pr}${merged ? ', merged' : ''}). ${next ? `Next: \`/coder next ${plan}\` takes Phase ${next.number}${merged ? '' : ' once this pull request is merged'}.` : 'That was the last phase: the plan is complete once this is merged.'}`,

  prClosed: (pr: number, merged: boolean, branch: string, deleted: boolean): string =>
    merged
      ? `Pull request #${pr} merged${deleted ? `; branch ${codeSpan(branch)} deleted` : ''}.`
      : `Pull request #${pr} was closed without merging; branch ${codeSpan(branch)} deleted, so the phase is free again.`,

  /** Quick mode, CI green, but the PR touches what only an architect may let through. */
  quickNeedsArchitect: (
    pr: number,
    architects: readonly string[],
    items: readonly string[],
  ): string =>
    [
      `**CI passed** on quick pull request #${pr}, but it touches what needs an architect: an approval by ${architects.length ? architects.map((a) => `@${a}`).join(', ') : 'an architect (config `architects`)'} completes it; anyone else's escalates it.`,
      '',
      ...items.map((i) => `- ${i}`),
    ].join('\n'),

  quickPassed: (pr: number): string =>
    `**CI passed** on quick pull request #${pr}: ready to review and merge.`,

  quickGrew: (
    pr: number,
    files: number,
    lines: number,
    maxFiles: number,
    maxLines: number,
  ): string =>
    `Quick pull request #${pr} has grown to ${files} file(s) and ${lines} changed lines (quick mode: at most ${maxFiles} file(s), fewer than ${maxLines} lines). Consider plan mode: put the work into a plan phase and run \`/coder next\`.`,

  notEscalated: (pr: number): string => `Pull request #${pr} is not escalated; nothing to resume.`,

  resumed: (pr: number): string =>
    `Resumed pull request #${pr}: the escalation is cleared, the attempt count starts again, and the gate is evaluated now.`,
};
