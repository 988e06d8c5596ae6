// A small C++ highlighter: splits source into tokens and returns DOM nodes (text nodes and spans
// with a class), so nothing in the source is ever parsed as HTML.
"use strict";
const kforgeHighlight = (() => {
  const keywords = new Set(("alignas alignof auto break case catch class const constexpr continue " +
    "decltype default delete do else enum explicit extern false for friend goto if inline " +
    "namespace new noexcept nullptr operator private protected public register reinterpret_cast " +
    "return sizeof static static_assert static_cast struct switch template this throw true try " +
    "typedef typename union using virtual volatile while restrict __restrict__ __restrict").split(" "));
  const types = new Set(("void bool char short int long float double signed unsigned size_t " +
    "int8_t int16_t int32_t int64_t uint8_t uint16_t uint32_t uint64_t std __m128 __m256 __m512 " +
    "__m256i __m512i __m128i __m256d __m512d").split(" "));
  const rules = [
    ["com", /^\/\/[^\n]*/], ["com", /^\/\*[\s\S]*?(\*\/|$)/],
    ["pp", /^#[^\n]*/], ["str", /^"(\\.|[^"\\\n])*"?/], ["str", /^'(\\.|[^'\\\n])*'?/],
    ["nu", /^(0x[0-9a-fA-F]+|\d+\.?\d*([eE][+-]?\d+)?|\.\d+([eE][+-]?\d+)?)[uUlLfF]*/],
    ["id", /^[A-Za-z_]\w*/], ["ws", /^\s+/], ["op", /^[^\w\s]/],
  ];
  function tokens(src) {
    const out = [];
    let atLineStart = true;
    while (src.length) {
      let kind = "op", text = src[0];
      for (const [k, re] of rules) {
        if (k === "pp" && !atLineStart) continue;
        const m = re.exec(src);
        if (m && m[0].length) { kind = k; text = m[0]; break; }
      }
      if (kind === "id") kind = keywords.has(text) ? "kw" : types.has(text) ? "ty" : "";
      if (kind === "ws" || kind === "op") kind = "";
      out.push([kind, text]);
      if (text.includes("\n")) atLineStart = true;
      else if (!/^\s+$/.test(text)) atLineStart = false;
      src = src.slice(text.length);
    }
    return out;
  }
  function render(src) {
    const frag = document.createDocumentFragment();
    for (const [kind, text] of tokens(src)) {
      if (!kind) { frag.appendChild(document.createTextNode(text)); continue; }
      const span = document.createElement("span");
      span.className = kind;
      span.textContent = text;
      frag.appendChild(span);
    }
    return frag;
  }
  // A unified diff, each line coloured by its first character.
  function diff(text) {
    const frag = document.createDocumentFragment();
    for (const line of text.split("\n")) {
      const span = document.createElement("span");
      if (line.startsWith("+") && !line.startsWith("+++")) span.className = "add";
      else if (line.startsWith("-") && !line.startsWith("---")) span.className = "del";
      else if (line.startsWith("@@")) span.className = "hunk";
      span.textContent = line + "\n";
      if (!span.className) frag.appendChild(document.createTextNode(line + "\n"));
      else frag.appendChild(span);
    }
    return frag;
  }
  return { render, diff, tokens };
})();
