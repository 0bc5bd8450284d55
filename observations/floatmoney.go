package observations

import (
	"strings"

	"github.com/kbmem/kb/internal/lexicon"
	"github.com/kbmem/kb/internal/textutil"
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
		if !textutil.IdentByte(s[i]) || s[i] >= '0' && s[i] <= '9' {
			i++
			continue
		}
		j := i
		for j < len(s) && textutil.IdentByte(s[j]) {
			j++
		}
		// The float first: a look at the next and previous bytes, where
		// splitting every name of a file into its parts is most of the cost.
		if (floatAfter(s, j) || floatBefore(s, i)) && moneyName(s[i:j]) {
			return true
		}
		i = j
	}
	return false
}

// moneyName reports whether one of id's name parts (lexicon.IdentParts) is
// a money word (lexicon.MoneyCodeWords); "total" counts unless it opens a
// camelCase name (totalPages, totalCount).
func moneyName(id string) bool {
	for _, p := range lexicon.IdentParts(id) {
		lp := strings.ToLower(p)
		if !lexicon.MoneyCodeWords.Has(lp) {
			continue
		}
		if lp == "total" && strings.HasPrefix(id, "total") && len(id) > len("total") && id[len("total")] != '_' {
			continue
		}
		return true
	}
	return false
}

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
	for m > 0 && (textutil.IdentByte(s[m-1]) || s[m-1] == '.') {
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
	for j < len(s) && j-k < 16 && textutil.IdentByte(s[j]) {
		j++
	}
	return s[k:j]
}

// wordBefore is the identifier that ends at s[:k].
func wordBefore(s string, k int) string {
	j := k
	for j > 0 && k-j < 16 && textutil.IdentByte(s[j-1]) {
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
