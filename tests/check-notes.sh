#!/bin/bash
# Every "See Note [Title]" must cite a Note that exists somewhere in the
# sources (STYLE.md item 4).
set -u
cd "$(dirname "$0")/.."
files=$(git ls-files '*.c' '*.h' '*.md' 2>/dev/null || find rts include tests -name '*.[ch]')
status=0
cited=$(grep -ho 'See Note \[[^]]*\]' $files | sed 's/^See Note //' | sort -u)
while IFS= read -r note; do
    [ -z "$note" ] && continue
    title=${note#[}; title=${title%]}
    # A definition is the Note title at the start of a comment line.
    if ! grep -qE "^[[:space:]]*(/?\*+|//|#)?[[:space:]]*Note \[$(printf '%s' "$title" | sed 's/[][\.*^$/]/\\&/g')\]" $files; then
        echo "check-notes: 'See Note [$title]' cites a Note that does not exist"
        status=1
    fi
done <<< "$cited"
[ $status = 0 ] && echo "check-notes: $(echo "$cited" | grep -c . ) cited Notes all exist"
exit $status
