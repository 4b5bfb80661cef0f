import { readFileSync } from 'node:fs';

/** Plans of the other kinds (spec-kit, Kiro, Task Master) on a default branch, from the fixtures. */
export const fixture = (path: string) =>
  readFileSync(new URL(`../fixtures/${path}`, import.meta.url), 'utf8');

export const SPECKIT = 'specs/001-photo-albums';
export const KIRO = '.kiro/specs/user-auth';
export const TASKMASTER = '.taskmaster/tasks/tasks.json';
export const OPENSPEC = 'openspec/changes/add-profile-export';

const REQUIREMENTS = [
  '# Requirements Document',
  '',
  '## Requirements',
  '',
  '### Requirement 1',
  '',
  '**User Story:** As a user, I want to sign in.',
  '',
  '1. WHEN a user signs in THEN the system SHALL start a session',
  '2. WHEN the password is wrong THEN the system SHALL refuse',
  '',
  '### Requirement 2',
  '',
  '**User Story:** As a user, I want my data kept.',
  '',
  '1. WHEN data is saved THEN the system SHALL validate it',
  '',
  '### Requirement 3',
  '',
  '**User Story:** As an admin, I want an audit trail.',
  '',
].join('\n');

export const KIND_FILES: Record<
  'speckit' | 'kiro' | 'taskmaster' | 'openspec',
  Record<string, string>
> = {
  speckit: {
    [`${SPECKIT}/tasks.md`]: fixture('speckit/001-photo-albums/tasks.md'),
    [`${SPECKIT}/spec.md`]: '# Feature Specification: Photo Albums\n',
    [`${SPECKIT}/plan.md`]: '# Implementation Plan: Photo Albums\n',
    [`${SPECKIT}/data-model.md`]: '# Data Model\n',
    [`${SPECKIT}/contracts/albums.yaml`]: 'openapi: 3.0.0\n',
  },
  kiro: {
    [`${KIRO}/tasks.md`]: fixture('kiro/user-auth/tasks.md'),
    [`${KIRO}/requirements.md`]: REQUIREMENTS,
    [`${KIRO}/design.md`]: '# Design\n\nSessions live in Redis.\n',
  },
  taskmaster: { [TASKMASTER]: fixture('taskmaster/tagged.json') },
  openspec: Object.fromEntries(
    ['tasks.md', 'proposal.md', 'design.md', 'specs/user-profile/spec.md'].map((f) => [
      `${OPENSPEC}/${f}`,
      fixture(`openspec/add-profile-export/${f}`),
    ]),
  ),
};
