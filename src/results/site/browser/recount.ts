// Entry of the site's recount bundle (tools/build.mjs writes it to dist/site/recount.js; `mcpctx
// site` copies it to verify/recount.js). The page's verify button (VERIFY_BUTTON_JS) loads it only
// when pressed, since it carries the 2 MB rank table, and calls the function it leaves on window.
import { recountMeasurement } from './_recount.js';

(globalThis as { mcpctxRecount?: typeof recountMeasurement }).mcpctxRecount = recountMeasurement;
