#!/usr/bin/env bash
# Publishes a release of the Action: `scripts/release.sh v1.2.3` on the commit to release (dist/
# current, tests green). It checks the tag against package.json, tags the commit v1.2.3 and moves
# the major tag (v1) to it, creating it on the first release of that major — what
# `uses: <owner>/coder-loop@v1` resolves — then pushes both.
# The release workflow (.github/workflows/release.yml) runs it when a v1.2.3 tag is pushed.
set -euo pipefail
tag="${1:?usage: scripts/release.sh vMAJOR.MINOR.PATCH}"
remote="${RELEASE_REMOTE:-origin}"
if ! [[ "$tag" =~ ^v([0-9]+)\.[0-9]+\.[0-9]+$ ]]; then
  echo "release: $tag is not vMAJOR.MINOR.PATCH" >&2
  exit 2
fi
major="v${BASH_REMATCH[1]}"
version="$(node -p 'JSON.parse(require("fs").readFileSync("package.json", "utf8")).version')"
if [ "v$version" != "$tag" ]; then
  echo "release: package.json says $version, not ${tag#v}: run npm version ${tag#v} first" >&2
  exit 1
fi
commit="$(git rev-parse HEAD)"
# The tag exists when the workflow runs (it was pushed); from a clone the script makes it.
if existing="$(git rev-parse -q --verify "refs/tags/$tag^{commit}")"; then
  if [ "$existing" != "$commit" ]; then
    echo "release: $tag already names $existing, not HEAD ($commit)" >&2
    exit 1
  fi
else
  git tag -a "$tag" -m "coder-loop $tag" "$commit"
fi
git tag -f "$major" "$commit"
git push "$remote" "refs/tags/$tag"
git push -f "$remote" "refs/tags/$major"
echo "release: $tag and $major → $commit"
