// Rule numbers in a text as links to their rule card's section: "... (rule CR-5.2)" links
// "CR-5.2" to /rules/CR-5.2, which the server sends on to /rules/castle-rock#CR-5.2. One function
// for every page that shows prompts; the text stays text (no markup is ever parsed from it).

const RULE = /\b[A-Z]{2,4}-\d+(?:\.\d+)?\b/g;

export function linkRules(text) {
  const out = document.createDocumentFragment();
  let last = 0;
  for (const found of String(text ?? "").matchAll(RULE)) {
    out.append(text.slice(last, found.index));
    const link = document.createElement("a");
    link.className = "rule";
    link.href = `/rules/${found[0]}`;
    link.textContent = found[0];
    out.append(link);
    last = found.index + found[0].length;
  }
  out.append(String(text ?? "").slice(last));
  return out;
}
