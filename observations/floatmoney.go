package observations

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// floatMoney reports whether code keeps money in floating point: a name
// one of whose parts is a money word (price, unit_price, unitPrice,
// BASE_FEE, declaredValueEur, invoiceTotal; not syntax, loadBalancer or
// totalPages) typed as a float (`price: f64`, `amount: number`,
// `Price float64`, `double price`), assigned a decimal literal (`FEE =
// 4.90`) or converted to one (`price.to_f`, `parseFloat(order.price)`,
// `amount as f64`). It is code, not a regular expression: the expression
// that said the same, run over every written text by the hook, was most of
// a hook's time on a large Write.
func floatMoney(s string) bool {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if !isIdentStart(r) {
			i += size
			continue
		}
		j := i
		for j < len(s) {
			r, size := utf8.DecodeRuneInString(s[j:])
			if !isIdentPart(r) {
				break
			}
			j += size
		}
		if moneyName(s[i:j]) && (floatAfter(s, j) || floatBefore(s, i)) {
			return true
		}
		i = j
	}
	return false
}

func isIdentStart(r rune) bool { return r == '_' || r < utf8.RuneSelf && unicode.IsLetter(r) }
func isIdentPart(r rune) bool  { return isIdentStart(r) || r >= '0' && r <= '9' }

// moneyParts are the money words a name part may be; "total" counts
// unless it opens a camelCase name (totalPages, totalCount).
var moneyParts = map[string]bool{"amount": true, "amounts": true, "price": true, "prices": true, "cost": true, "costs": true,
	"fee": true, "fees": true, "balance": true, "subtotal": true, "tax": true, "vat": true, "discount": true, "refund": true,
	"revenue": true, "salary": true, "wage": true, "wages": true, "money": true, "eur": true, "usd": true, "gbp": true,
	"cents": true, "payout": true, "charge": true, "total": true}

// moneyName reports whether one of id's parts (split at underscores, where
// a lower-case letter or a digit meets an upper-case one and where a
// lower-case letter meets a digit) is a money word.
func moneyName(id string) bool {
	start := 0
	for k := 0; k <= len(id); k++ {
		end := k == len(id) || id[k] == '_' ||
			k > start && isUpperASCII(id[k]) && (isLowerASCII(id[k-1]) || isDigitASCII(id[k-1])) ||
			k > start && isDigitASCII(id[k]) && isLowerASCII(id[k-1])
		if !end {
			continue
		}
		if part := strings.ToLower(id[start:k]); moneyParts[part] {
			// "totalPages": a lower-case total that opens a camelCase name.
			camelNext := k < len(id) && id[k] != '_'
			if part != "total" || start > 0 || !camelNext || isUpperASCII(id[start]) {
				return true
			}
		}
		start = k
		if k < len(id) && id[k] == '_' {
			start = k + 1
		}
	}
	return false
}

func isUpperASCII(b byte) bool { return b >= 'A' && b <= 'Z' }
func isLowerASCII(b byte) bool { return b >= 'a' && b <= 'z' }
func isDigitASCII(b byte) bool { return b >= '0' && b <= '9' }

var floatTypes = map[string]bool{"f32": true, "f64": true, "float": true, "float32": true, "float64": true, "Float": true,
	"Double": true, "double": true, "number": true}

// floatAfter reports whether what follows a name at s[j:] makes it a
// float: a type annotation, a Go field's type, a decimal literal assigned,
// a conversion.
func floatAfter(s string, j int) bool {
	k := skipSpaces(s, j)
	if k < len(s) && (s[k] == '!' || s[k] == '?') {
		k = skipSpaces(s, k+1)
	}
	switch {
	case k < len(s) && s[k] == ':' && !strings.HasPrefix(s[k:], "::"):
		return floatTypes[wordAt(s, skipSpaces(s, k+1))]
	case k < len(s) && s[k] == '=' && !strings.HasPrefix(s[k:], "==") && !strings.HasPrefix(s[k:], "=>"):
		k = skipSpaces(s, k+1)
		if k < len(s) && s[k] == '-' {
			k++
		}
		return decimalAt(s, k)
	case strings.HasPrefix(s[j:], ".to_f") || strings.HasPrefix(s[j:], ".toDouble()") || strings.HasPrefix(s[j:], ".toFloat()"):
		return true
	}
	if k > j { // a Go field: Price float64, Price *float64
		if k < len(s) && s[k] == '*' {
			k++
		}
		switch w := wordAt(s, k); w {
		case "float32", "float64":
			return true
		case "as":
			w = wordAt(s, skipSpaces(s, k+2))
			return w == "f32" || w == "f64"
		}
	}
	return false
}

// floatBefore reports whether what precedes a name at s[:i] makes it a
// float: a C-style declaration (double price, float? fee) or a call that
// converts it (parseFloat(order.price), float(amount)).
func floatBefore(s string, i int) bool {
	m := i
	for m > 0 && (isIdentPart(rune(s[m-1])) || s[m-1] == '.') {
		m-- // the object a member belongs to: order.price
	}
	k := m
	for k > 0 && s[k-1] == ' ' {
		k--
	}
	if k > 0 && s[k-1] == '(' {
		switch wordBefore(s, k-1) {
		case "float", "parseFloat", "Float", "toDouble":
			return true
		}
		return false
	}
	if m < i { // a member, not a declared name
		return false
	}
	k = i
	for k > 0 && (s[k-1] == ' ' || s[k-1] == '\t') {
		k--
	}
	if k == i {
		return false
	}
	if k > 0 && s[k-1] == '?' {
		k--
	}
	switch wordBefore(s, k) {
	case "float", "double", "Float", "Double":
		return true
	}
	return false
}

func skipSpaces(s string, k int) int {
	for k < len(s) && (s[k] == ' ' || s[k] == '\t') {
		k++
	}
	return k
}

// wordAt is the identifier that starts at s[k:].
func wordAt(s string, k int) string {
	j := k
	for j < len(s) && j-k < 16 && isIdentPart(rune(s[j])) {
		j++
	}
	return s[k:j]
}

// wordBefore is the identifier that ends at s[:k].
func wordBefore(s string, k int) string {
	j := k
	for j > 0 && k-j < 16 && isIdentPart(rune(s[j-1])) {
		j--
	}
	return s[j:k]
}

// decimalAt reports whether a decimal literal (4.90, 0.02f) starts at s[k:].
func decimalAt(s string, k int) bool {
	d := k
	for d < len(s) && s[d] >= '0' && s[d] <= '9' {
		d++
	}
	if d == k || d+1 >= len(s) || s[d] != '.' || s[d+1] < '0' || s[d+1] > '9' {
		return false
	}
	return true
}
