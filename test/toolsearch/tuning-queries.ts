/**
 * Queries the ranking was tuned on, written as a user or a model would ask, each with the tool a
 * careful reader of the catalog would pick (a few accept either of two tools that do the job).
 * A separate blind set for the GitHub catalog is kept elsewhere; these are not it.
 *
 * `catalog` is `github` (test/fixtures/github-mcp-server-toolsnaps, 117 tools) or the base name of
 * a file in test/fixtures/mcp-tool-catalogs/ (`server-filesystem` → server-filesystem.tools.json).
 */
export interface TuningQuery {
  readonly catalog: string;
  readonly query: string;
  /** The right tool, or the tools that are equally right. */
  readonly expected: string | readonly string[];
}

export const TUNING_QUERIES: readonly TuningQuery[] = [
  // github-mcp-server (117 tools)
  { catalog: 'github', query: 'show me the open PRs in this repo', expected: ['list_pull_requests', 'search_pull_requests'] },
  { catalog: 'github', query: 'read the README file from the main branch', expected: 'get_file_contents' },
  { catalog: 'github', query: 'merge the pull request once checks pass', expected: 'merge_pull_request' },
  { catalog: 'github', query: 'who last changed each line of this file', expected: 'get_file_blame' },
  { catalog: 'github', query: 'file a bug report for the crash', expected: ['issue_write', 'create_issue'] },
  { catalog: 'github', query: 'leave a comment on issue 42', expected: 'add_issue_comment' },
  { catalog: 'github', query: 'why did the CI workflow run fail, show the job logs', expected: 'get_job_logs' },
  { catalog: 'github', query: 'rerun the failed GitHub Actions workflow', expected: 'actions_run_trigger' },
  { catalog: 'github', query: 'create a new branch called feature-x', expected: 'create_branch' },
  { catalog: 'github', query: 'fork this repository into my account', expected: 'fork_repository' },
  { catalog: 'github', query: 'find code that calls parseConfig across repositories', expected: 'search_code' },
  { catalog: 'github', query: 'what is the newest release of the project', expected: 'get_latest_release' },
  { catalog: 'github', query: 'list the dependabot security alerts', expected: 'list_dependabot_alerts' },
  { catalog: 'github', query: 'ask copilot to review my pull request', expected: 'request_copilot_review' },
  { catalog: 'github', query: 'star this repository', expected: 'star_repository' },
  { catalog: 'github', query: 'who am I logged in as', expected: 'get_me' },
  { catalog: 'github', query: 'mark all my notifications as read', expected: 'mark_all_notifications_read' },
  { catalog: 'github', query: 'commit several files in one push', expected: 'push_files' },
  { catalog: 'github', query: 'show the diff and changed files of pull request 7', expected: 'pull_request_read' },
  { catalog: 'github', query: 'approve the pull request with a review', expected: ['pull_request_review_write', 'create_pull_request_review'] },
  { catalog: 'github', query: 'close issue 12 as completed', expected: ['update_issue_state', 'issue_write'] },
  { catalog: 'github', query: 'add the bug label to an issue', expected: 'update_issue_labels' },
  { catalog: 'github', query: 'find repositories about machine learning in rust', expected: 'search_repositories' },
  { catalog: 'github', query: 'look up a user by their real name', expected: 'search_users' },
  { catalog: 'github', query: 'see the history of commits on main', expected: 'list_commits' },
  { catalog: 'github', query: 'members of the platform team in our org', expected: 'get_team_members' },
  { catalog: 'github', query: 'turn the draft pull request into ready for review', expected: 'update_pull_request_draft_state' },
  { catalog: 'github', query: 'show the directory tree of the repository', expected: 'get_repository_tree' },
  { catalog: 'github', query: 'react with a thumbs up to that issue', expected: 'add_issue_reaction' },
  { catalog: 'github', query: 'make a gist with this snippet', expected: 'create_gist' },
  { catalog: 'github', query: 'which issues block this one', expected: 'issue_dependency_read' },
  { catalog: 'github', query: 'is this issue a duplicate of an existing one', expected: 'find_duplicate' },
  { catalog: 'github', query: 'assign the issue to alice', expected: 'update_issue_assignees' },
  { catalog: 'github', query: 'delete a file from the repo', expected: 'delete_file' },
  // other real catalogs
  { catalog: 'server-filesystem', query: 'save this text to notes.md', expected: 'write_file' },
  { catalog: 'server-filesystem', query: 'rename a file', expected: 'move_file' },
  { catalog: 'server-filesystem', query: 'show what is inside the src folder', expected: ['list_directory', 'directory_tree'] },
  { catalog: 'server-filesystem', query: 'make a new folder for the build output', expected: 'create_directory' },
  { catalog: 'server-filesystem', query: 'how big is this file and when was it modified', expected: 'get_file_info' },
  { catalog: 'server-filesystem', query: 'find all files matching *.test.ts', expected: 'search_files' },
  { catalog: 'server-memory', query: 'remember that Alice works at Acme', expected: ['create_entities', 'add_observations'] },
  { catalog: 'server-memory', query: 'link two entities with a relation', expected: 'create_relations' },
  { catalog: 'server-memory', query: 'dump the whole knowledge graph', expected: 'read_graph' },
  { catalog: 'server-puppeteer', query: 'open https://example.com in the browser', expected: 'puppeteer_navigate' },
  { catalog: 'server-puppeteer', query: 'take a screenshot of the page', expected: 'puppeteer_screenshot' },
  { catalog: 'server-puppeteer', query: 'type my email into the login form field', expected: 'puppeteer_fill' },
  { catalog: 'server-puppeteer', query: 'run some javascript in the page', expected: 'puppeteer_evaluate' },
  { catalog: 'cloudflare-radar', query: 'which domains are most popular', expected: 'get_domains_ranking' },
  { catalog: 'cloudflare-radar', query: 'where is this IP address located', expected: 'get_ip_details' },
  { catalog: 'cloudflare-radar', query: 'scan a suspicious url', expected: 'scan_url' },
  { catalog: 'server-github', query: 'open a pull request from my branch', expected: 'create_pull_request' },
  { catalog: 'server-github', query: 'what files changed in the PR', expected: 'get_pull_request_files' },
];

/**
 * Requests in everyday words a catalog does not use ("inbox" for notifications, "ticket" for an
 * issue, "pipeline" for a workflow run): the misses the vocabulary bridge (src/toolsearch/
 * _vocabulary.ts) is for. Written before the bridge, from what developers say, not from it.
 */
export const EVERYDAY_TUNING_QUERIES: readonly TuningQuery[] = [
  { catalog: 'github', query: 'open a ticket about the login crash', expected: ['issue_write', 'create_issue'] },
  { catalog: 'github', query: "what's waiting in my inbox", expected: 'list_notifications' },
  { catalog: 'github', query: 'share this snippet as a paste', expected: 'create_gist' },
  { catalog: 'github', query: 'sign off on the PR', expected: ['pull_request_review_write', 'create_pull_request_review'] },
  { catalog: 'github', query: 'who is in the backend group', expected: 'get_team_members' },
  { catalog: 'github', query: 'why did the pipeline fail', expected: ['get_job_logs', 'actions_get', 'actions_list'] },
  { catalog: 'github', query: 'kick off the deploy pipeline again', expected: 'actions_run_trigger' },
  { catalog: 'github', query: 'show the changelog for version 2.0', expected: ['get_release_by_tag', 'list_releases'] },
  { catalog: 'github', query: 'stop getting pinged about this thread', expected: ['manage_notification_subscription', 'dismiss_notification'] },
  { catalog: 'github', query: 'bookmark this project so I can find it later', expected: 'star_repository' },
  { catalog: 'github', query: "copy someone else's project into my own account", expected: 'fork_repository' },
  { catalog: 'github', query: 'which of our dependencies are vulnerable', expected: 'list_dependabot_alerts' },
  { catalog: 'github', query: 'check the code for leaked passwords and api keys', expected: 'list_secret_scanning_alerts' },
  { catalog: 'github', query: 'who has write access to this project', expected: 'list_repository_collaborators' },
  { catalog: 'github', query: 'sync my PR with the latest main', expected: 'update_pull_request_branch' },
  { catalog: 'server-filesystem', query: 'peek at the log file', expected: ['read_text_file', 'read_file'] },
  { catalog: 'server-filesystem', query: 'which paths am I permitted to touch', expected: 'list_allowed_directories' },
  { catalog: 'server-puppeteer', query: 'go to the login page', expected: 'puppeteer_navigate' },
  { catalog: 'server-puppeteer', query: 'press the submit button', expected: 'puppeteer_click' },
  { catalog: 'server-memory', query: 'forget everything about Bob', expected: 'delete_entities' },
  { catalog: 'cloudflare-radar', query: 'is the internet down in Spain right now', expected: 'get_traffic_anomalies' },
  { catalog: 'server-github', query: 'did CI pass on this PR', expected: 'get_pull_request_status' },
];
