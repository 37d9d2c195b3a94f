// highlight.js core with only the languages agents print most, to stay small.
// Anything else renders as plain, escaped text.
import hljs from 'highlight.js/lib/core';
import bash from 'highlight.js/lib/languages/bash';
import css from 'highlight.js/lib/languages/css';
import diff from 'highlight.js/lib/languages/diff';
import go from 'highlight.js/lib/languages/go';
import javascript from 'highlight.js/lib/languages/javascript';
import json from 'highlight.js/lib/languages/json';
import markdown from 'highlight.js/lib/languages/markdown';
import python from 'highlight.js/lib/languages/python';
import rust from 'highlight.js/lib/languages/rust';
import shell from 'highlight.js/lib/languages/shell';
import sql from 'highlight.js/lib/languages/sql';
import typescript from 'highlight.js/lib/languages/typescript';
import xml from 'highlight.js/lib/languages/xml';
import yaml from 'highlight.js/lib/languages/yaml';

hljs.registerLanguage('bash', bash);
hljs.registerLanguage('css', css);
hljs.registerLanguage('diff', diff);
hljs.registerLanguage('go', go);
hljs.registerLanguage('javascript', javascript);
hljs.registerLanguage('json', json);
hljs.registerLanguage('markdown', markdown);
hljs.registerLanguage('python', python);
hljs.registerLanguage('rust', rust);
hljs.registerLanguage('shell', shell);
hljs.registerLanguage('sql', sql);
hljs.registerLanguage('typescript', typescript);
hljs.registerLanguage('xml', xml);
hljs.registerLanguage('yaml', yaml);
hljs.registerAliases(['sh', 'zsh', 'console'], { languageName: 'bash' });
hljs.registerAliases(['golang'], { languageName: 'go' });
hljs.registerAliases(['html', 'svg'], { languageName: 'xml' });

/** Highlighted HTML (escaped by highlight.js) or null if the language is unknown. */
export function highlight(code: string, lang: string): string | null {
  if (!lang || !hljs.getLanguage(lang)) return null;
  try {
    return hljs.highlight(code, { language: lang, ignoreIllegals: true }).value;
  } catch {
    return null;
  }
}

/** Language for a file path, for highlighting diffs and file contents. */
export function langForPath(path: string): string {
  const m = /\.([a-z0-9]+)$/i.exec(path);
  const ext = m ? m[1].toLowerCase() : '';
  const map: Record<string, string> = {
    sh: 'bash', bash: 'bash', zsh: 'bash', css: 'css', diff: 'diff', patch: 'diff', go: 'go',
    js: 'javascript', mjs: 'javascript', cjs: 'javascript', jsx: 'javascript', json: 'json',
    md: 'markdown', markdown: 'markdown', py: 'python', rs: 'rust', sql: 'sql', ts: 'typescript',
    tsx: 'typescript', html: 'xml', xml: 'xml', svg: 'xml', svelte: 'xml', yml: 'yaml', yaml: 'yaml',
  };
  return map[ext] ?? '';
}
