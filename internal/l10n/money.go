package l10n

import (
	"math"
	"strconv"
	"strings"
)

// symbols are the currency signs each locale writes before an amount, as
// the browsers' Intl.NumberFormat does; other currencies are written
// with their ISO 4217 code.
var symbols = map[Locale]map[string]string{
	EN: {"USD": "$", "EUR": "€", "GBP": "£", "JPY": "¥", "CNY": "CN¥", "INR": "₹", "KRW": "₩"},
	ZH: {"USD": "US$", "EUR": "€", "GBP": "£", "JPY": "JP¥", "CNY": "¥", "INR": "₹", "KRW": "₩"},
}

// Money writes an amount of a currency (an ISO 4217 code) the way the
// window does (frontend/src/lib/cost.ts): the locale's sign for the
// currency, else its code; at least 2 decimals, up to 4 for amounts under
// 1 (an agent's turn often costs a fraction of a cent).
func (l Locale) Money(amount float64, currency string) string {
	if math.IsNaN(amount) || math.IsInf(amount, 0) {
		return "?"
	}
	code := strings.ToUpper(strings.TrimSpace(currency))
	neg := amount < 0
	amount = math.Abs(amount)
	digits := 2
	if amount < 1 {
		digits = 4
	}
	num := strconv.FormatFloat(amount, 'f', digits, 64)
	for digits > 2 && strings.HasSuffix(num, "0") {
		num = num[:len(num)-1]
		digits--
	}
	if i := strings.IndexByte(num, '.'); i > 3 {
		var b strings.Builder
		for j, r := range num[:i] {
			if j > 0 && (i-j)%3 == 0 {
				b.WriteByte(',')
			}
			b.WriteRune(r)
		}
		num = b.String() + num[i:]
	}
	sign := ""
	if neg {
		sign = "-"
	}
	if sym, ok := symbols[l][code]; ok {
		return sign + sym + num
	}
	if code == "" {
		return sign + num
	}
	return sign + code + "\u00a0" + num
}
