# make help: one line per target from the `## target: what it does` comment block above it (the
# block's first sentence, cut at 100 characters).
/^## / {
  if (!inblock && match($0, /^## [a-z][a-z0-9-]*(, [a-z][a-z0-9-]*)*: /)) { name = substr($0, 4, RLENGTH - 5); text = substr($0, RLENGTH + 1); capture = 1 }
  else if (capture) text = text " " substr($0, 4)
  inblock = 1; next
}
{
  if (capture) {
    s = text; if (match(s, /\.( |$)/)) s = substr(s, 1, RSTART)
    if (length(s) > 100) { s = substr(s, 1, 97); sub(/ [^ ]*$/, "", s); s = s "..." }
    n = split(name, names, /, /)
    for (i = 1; i <= n; i++) printf "  %-24s %s\n", names[i], (i == 1 ? s : "(as above)")
  }
  inblock = 0; capture = 0
}
