// The table page's entry: the page built from its modules (page.js) and started.

import {TablePage} from "./page.js";

new TablePage().start();
