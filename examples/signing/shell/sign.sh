#!/usr/bin/env bash
# Sign Domain Sales partner API requests and verify webhook deliveries with bash 4+, curl,
# openssl and coreutils (sort, cut, date, mktemp) only.
#
# The recipe is spec/docs/signing.md; the known answers are spec/vectors/signing.json. The
# functions canonical_query, canonical_string, sign_request and signed_request are the whole
# request side; verify_webhook the delivery side. Work happens on hex strings so that every
# byte (non-ASCII, control characters) survives bash.
#
# Usage:
#   bash sign.sh request METHOD TARGET [BODY]
#       env SERVICE_BASE_URL, SERVICE_KEY_ID, SERVICE_SECRET; IDEMPOTENCY_KEY (optional, POST /orders).
#       Signs and sends exactly BODY's bytes; prints the HTTP status, then the response body.
#       TARGET is the path and query as sent on the wire: percent-encode non-ASCII characters.
#   bash sign.sh verify-webhook SECRET SIGNATURE_HEADER < raw-body
#       Prints "valid" (exit 0) or "invalid" (exit 1).
#   bash sign.sh vectors path/to/signing.json
#       Prints what this code computes for every vector, one JSON object per line.
#
# Caveats of shell: openssl takes the secret on its command line (visible in `ps` to other users
# of the machine: sign on a machine you do not share), and bash string comparison is not
# guaranteed to take constant time (verify_webhook compares every character, which is the best
# bash can do). Production code belongs in a language with hmac.compare_digest or hash_equals.
set -euo pipefail
export LC_ALL=C # byte semantics for ${#s}, ${s:i:n}, [[ ]] and sort

EMPTY_BODY_SHA256=e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855

# Whether the hex bytes in $1 are valid UTF-8 (Unicode Table 3-7: no overlongs, no surrogates,
# nothing above U+10FFFF, no stray or missing continuation bytes).
valid_utf8_hex() {
  local h=$1 i=0 n=${#1} b need lo hi
  while ((i < n)); do
    b=$((16#${h:i:2})) i=$((i + 2))
    if ((b < 0x80)); then continue
    elif ((b >= 0xC2 && b <= 0xDF)); then need=1 lo=0x80 hi=0xBF
    elif ((b == 0xE0)); then need=2 lo=0xA0 hi=0xBF
    elif ((b == 0xED)); then need=2 lo=0x80 hi=0x9F
    elif ((b >= 0xE1 && b <= 0xEF)); then need=2 lo=0x80 hi=0xBF
    elif ((b == 0xF0)); then need=3 lo=0x90 hi=0xBF
    elif ((b >= 0xF1 && b <= 0xF3)); then need=3 lo=0x80 hi=0xBF
    elif ((b == 0xF4)); then need=3 lo=0x80 hi=0x8F
    else return 1; fi
    while ((need > 0)); do
      ((i < n)) || return 1
      b=$((16#${h:i:2})) i=$((i + 2))
      ((b >= lo && b <= hi)) || return 1
      lo=0x80 hi=0xBF need=$((need - 1))
    done
  done
}

# Strict percent-decoding of $1 into REPLY as hex bytes: only %XX escapes, "+" stays a plus, the
# result must be valid UTF-8. Returns 1 when malformed (the API answers 400 validation_error).
decode_component() {
  local raw=$1 out='' i=0 n=${#1} c pair hex
  while ((i < n)); do
    c=${raw:i:1}
    if [[ $c == % ]]; then
      pair=${raw:i+1:2}
      [[ $pair =~ ^[0-9A-Fa-f]{2}$ ]] || return 1
      out+=${pair^^} i=$((i + 3))
    else
      printf -v hex '%02X' "'$c" # the byte's value (C locale: one byte per character)
      out+=$hex i=$((i + 1))
    fi
  done
  valid_utf8_hex "$out" || return 1
  REPLY=$out
}

# Hex bytes $1 -> only A-Z a-z 0-9 - _ . ~ literal, every other byte as %XX in uppercase.
encode_hex() {
  local h=$1 out='' i b
  for ((i = 0; i < ${#h}; i += 2)); do
    b=${h:i:2}
    case $b in
      3[0-9] | 4[1-9A-F] | 5[0-9A] | 6[1-9A-F] | 7[0-9A] | 2D | 2E | 5F | 7E) printf -v b "\\x$b" ;;
      *) b=%$b ;;
    esac
    out+=$b
  done
  REPLY=$out
}

# The raw query string $1 (after "?") in canonical form, into REPLY. Returns 1 when malformed.
canonical_query() {
  local rest=$1 part key value lines='' line out=''
  while [[ -n $rest ]]; do
    part=${rest%%&*}
    if [[ $rest == *'&'* ]]; then rest=${rest#*&}; else rest=''; fi
    [[ -n $part ]] || continue
    key=${part%%=*} value=''
    [[ $part == *=* ]] && value=${part#*=} # split at the first "="; no "=" is an empty value
    decode_component "$key" || return 1
    key=$REPLY
    decode_component "$value" || return 1
    lines+="K$key V$REPLY"$'\n'
  done
  # Hex of UTF-8 bytes compared as bytes (C locale) is code point order, not UTF-16 units.
  while read -r key value; do
    [[ -n $key ]] || continue
    encode_hex "${key#K}"
    out+=${out:+&}$REPLY=
    encode_hex "${value#V}"
    out+=$REPLY
  done < <(printf '%s' "$lines" | sort -t ' ' -k1,1 -k2,2)
  REPLY=$out
}

sha256_hex() { openssl dgst -sha256 -r | cut -d ' ' -f 1; }

# Six lines: METHOD, PATH (as sent), canonical query, timestamp, nonce, body SHA-256; into REPLY.
canonical_string() {
  local method=${1^^} path=$2 query=$3 timestamp=$4 nonce=$5 body=$6 hash=$EMPTY_BODY_SHA256
  canonical_query "$query" || return 1
  if [[ $method != GET && $method != HEAD && -n $body ]]; then hash=$(printf '%s' "$body" | sha256_hex); fi
  REPLY="$method"$'\n'"$path"$'\n'"$REPLY"$'\n'"$timestamp"$'\n'"$nonce"$'\n'"$hash"
}

# The X-Service-Signature header value for secret $1 and canonical string $2: v1= and lowercase hex.
sign_request() { printf 'v1=%s' "$(printf '%s' "$2" | openssl dgst -sha256 -hmac "$1" -r | cut -d ' ' -f 1)"; }

# A random UUID v4 from openssl's CSPRNG.
uuid4() {
  local h
  h=$(openssl rand -hex 16)
  printf '%s-%s-4%s-%x%s-%s' "${h:0:8}" "${h:8:4}" "${h:13:3}" $(((16#${h:16:1} & 3) | 8)) "${h:17:3}" "${h:20:12}"
}

# Signs and sends: signed_request METHOD TARGET BODY [BODY_TO_SIGN]; prints status, then body.
signed_request() {
  local method=${1^^} target=$2 body=$3 timestamp nonce signature out status
  local path=${target%%\?*} query=''
  [[ $target == *'?'* ]] && query=${target#*\?}
  timestamp=$(date +%s) # whole seconds
  nonce=$(uuid4)        # fresh for every attempt, retries included
  canonical_string "$method" "$path" "$query" "$timestamp" "$nonce" "${4-$body}" || {
    echo "sign.sh: the query of $target is malformed" >&2
    return 2
  }
  signature=$(sign_request "$SERVICE_SECRET" "$REPLY")
  local args=(--silent --show-error --globoff --path-as-is -X "$method"
    -H "X-Service-Key-Id: $SERVICE_KEY_ID" -H "X-Service-Timestamp: $timestamp"
    -H "X-Service-Nonce: $nonce" -H "X-Service-Signature: $signature")
  [[ -n ${IDEMPOTENCY_KEY-} ]] && args+=(-H "Idempotency-Key: $IDEMPOTENCY_KEY")
  # The body goes through stdin: --data-binary "$body" would read a file for a body starting with @.
  [[ -n $body && $method != GET && $method != HEAD ]] && args+=(-H 'Content-Type: application/json' --data-binary @-)
  out=$(mktemp)
  status=$(printf '%s' "$body" | curl "${args[@]}" -o "$out" -w '%{http_code}' "${SERVICE_BASE_URL%/}$target") || {
    rm -f "$out"
    return 1
  }
  printf '%s\n' "$status"
  cat "$out"
  rm -f "$out"
}

# Whether X-Service-Signature $2 (bare lowercase hex, no v1=) matches the raw body on stdin.
verify_webhook() {
  local expected given=$2 diff=0 i
  expected=$(openssl dgst -sha256 -hmac "$1" -r | cut -d ' ' -f 1) # the exact bytes, NULs included
  [[ ${#given} -eq ${#expected} ]] || return 1
  for ((i = 0; i < ${#expected}; i++)); do
    [[ ${expected:i:1} == "${given:i:1}" ]] || diff=1
  done
  return "$diff"
}

# --- vectors: a reader for the one-member-per-line layout of spec/vectors/signing.json -----------

# The JSON string body $1 (between the quotes) unescaped into REPLY.
json_unescape() {
  local s=$1 out='' c cp lo
  while [[ -n $s ]]; do
    c=${s%%\\*}
    out+=$c
    s=${s:${#c}}
    [[ -n $s ]] || break
    case ${s:1:1} in
      n) out+=$'\n' s=${s:2} ;;
      r) out+=$'\r' s=${s:2} ;;
      t) out+=$'\t' s=${s:2} ;;
      b) out+=$'\b' s=${s:2} ;;
      f) out+=$'\f' s=${s:2} ;;
      u)
        cp=$((16#${s:2:4})) s=${s:6}
        if ((cp >= 0xD800 && cp <= 0xDBFF)) && [[ ${s:0:2} == '\u' ]]; then
          lo=$((16#${s:2:4})) s=${s:6}
          cp=$((0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00)))
        fi
        # UTF-8 bytes of the code point as \xHH text, then turned into the bytes themselves.
        if ((cp < 0x80)); then printf -v c '\\x%02X' "$cp"
        elif ((cp < 0x800)); then printf -v c '\\x%02X\\x%02X' $((0xC0 | cp >> 6)) $((0x80 | (cp & 63)))
        elif ((cp < 0x10000)); then
          printf -v c '\\x%02X\\x%02X\\x%02X' $((0xE0 | cp >> 12)) $((0x80 | (cp >> 6 & 63))) $((0x80 | (cp & 63)))
        else
          printf -v c '\\x%02X\\x%02X\\x%02X\\x%02X' $((0xF0 | cp >> 18)) $((0x80 | (cp >> 12 & 63))) \
            $((0x80 | (cp >> 6 & 63))) $((0x80 | (cp & 63)))
        fi
        printf -v c "$c"
        out+=$c
        ;;
      *) out+=${s:1:1} s=${s:2} ;; # \" \\ \/
    esac
  done
  REPLY=$out
}

vectors() {
  local section='' line member value
  local -A c=()
  while IFS= read -r line || [[ -n $line ]]; do
    if [[ $line =~ ^[[:space:]]*\"(canonical_query|invalid_query|signatures|webhooks)\":[[:space:]]*\[ ]]; then
      section=${BASH_REMATCH[1]}
    elif [[ -n $section && $line =~ ^[[:space:]]*\"([a-z_]+)\":[[:space:]]*\"(.*)\",?[[:space:]]*$ ]]; then
      member=${BASH_REMATCH[1]} value=${BASH_REMATCH[2]}
      json_unescape "$value"
      c[$member]=$REPLY
    elif [[ -n ${c[name]+set} && $line =~ ^[[:space:]]*\},?[[:space:]]*$ ]]; then
      case $section in
        canonical_query)
          canonical_query "${c[query]}"
          vector_line canonical_query "${c[name]}" "$REPLY"
          ;;
        invalid_query)
          if canonical_query "${c[query]}"; then vector_line invalid_query "${c[name]}" "$REPLY"; else
            vector_line invalid_query "${c[name]}" rejected
          fi
          ;;
        signatures)
          canonical_string "${c[method]}" "${c[path]}" "${c[query]}" "${c[timestamp]}" "${c[nonce]}" "${c[body]}"
          vector_line signature "${c[name]}" "$(sign_request "${c[secret]}" "$REPLY")"
          ;;
        webhooks)
          vector_line webhook "${c[name]}" "$(printf '%s' "${c[body]}" | openssl dgst -sha256 -hmac "${c[secret]}" -r | cut -d ' ' -f 1)"
          ;;
      esac
      c=()
    fi
  done <"$1"
}

# One output line; name and result are plain text.
vector_line() {
  local name result
  name=${2//\\/\\\\} name=${name//\"/\\\"}
  result=${3//\\/\\\\} result=${result//\"/\\\"}
  printf '{"kind":"%s","name":"%s","result":"%s"}\n' "$1" "$name" "$result"
}

main() {
  case "${1-}:$#" in
    vectors:2) vectors "$2" ;;
    request:3 | request:4)
      if [[ -n ${SIGN_BODY+set} ]]; then signed_request "$2" "$3" "${4-}" "$SIGN_BODY"; else signed_request "$2" "$3" "${4-}"; fi
      ;;
    verify-webhook:3)
      if verify_webhook "$2" "$3"; then echo valid; else
        echo invalid
        return 1
      fi
      ;;
    *)
      echo 'usage: request METHOD TARGET [BODY] | verify-webhook SECRET SIGNATURE < body | vectors FILE' >&2
      return 2
      ;;
  esac
}

main "$@"
