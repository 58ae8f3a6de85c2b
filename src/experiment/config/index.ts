// An experiment's inputs: the config (and the command line's model overrides), the snapshot,
// allowlist, tasks and scripted turns read once and hashed, the guard that stops a run when one
// changes, and the tasks' validation against the snapshot.
export { DEFAULT_SYSTEM_PROMPT, MAX_REPEAT, applyModelOverrides, launchFor, loadExperimentConfig, parseExperimentConfig, type ModelOverrides } from './_config.js';
export { InputGuard, readInputs, resolveProbe, type ExperimentInputs } from './_inputs.js';
export { unplacedEvidenceNote, validateTasks } from './_validate.js';
export { parseTasks } from './_tasks.js';
