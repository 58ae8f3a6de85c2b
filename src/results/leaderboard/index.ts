// The leaderboard (markdown and JSON), the tool-shape baseline and the badges of results/: pure
// functions of a ResultsState, so the same state writes the same bytes however it was swept.
export {
  LEADERBOARD_JSON_FILE,
  LEADERBOARD_MD_FILE,
  LEADERBOARD_METHOD,
  leaderboard,
  leaderboardJson,
  type Leaderboard,
  type LeaderboardRow,
  type LeaderboardTrend,
} from './_rows.js';
export { leaderboardMarkdown } from './_markdown.js';
export { TOOL_SHAPE_FILE, TOOL_SHAPE_METHOD, nearestRankQuantiles, readToolShape, toolShape, toolShapeJson, type ToolShape } from './_tool-shape.js';
export { BADGES_DIR, badgeFileName, badgeSvg } from './_badge.js';
