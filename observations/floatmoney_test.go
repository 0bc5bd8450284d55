package observations

import "testing"

func TestMoneyName(t *testing.T) {
	for id, want := range map[string]bool{
		"price": true, "unit_price": true, "unitPrice": true, "BASE_FEE": true, "declaredValueEur": true,
		"invoiceTotal": true, "total": true, "total_cents": true, "TotalAmount": true, "amount2": true,
		"syntax": false, "loadBalancer": false, "totalPages": false, "taxonomy": false, "coffee": false, "weightKg": false,
	} {
		if got := moneyName(id); got != want {
			t.Errorf("moneyName(%q) = %v, want %v", id, got, want)
		}
	}
}

func TestFloatMoney(t *testing.T) {
	for code, want := range map[string]bool{
		"pub unit_price: f64,":                   true,
		"\tPrice *float64 `json:\"price\"`":      true,
		"double? discount = null;":               true,
		"SHIPPING_FEE = 4.90":                    true,
		"const total = parseFloat(order.price);": true,
		"amount.to_f":                            true,
		"let cents = amount as f64;":             true,
		"declaredValueEur!: number;":             true,
		"amount: Decimal = Decimal('0')":         false,
		"price_cents: i64,":                      false,
		"if total == 0.5 {":                      false,
		"totalPages: number;":                    false,
		"let price = Money::from_cents(499);":    false,
		"self.cents as f64":                      true,
	} {
		if got := floatMoney(code); got != want {
			t.Errorf("floatMoney(%q) = %v, want %v", code, got, want)
		}
	}
}

func FuzzFloatMoney(f *testing.F) {
	for _, s := range []string{"price: f64", "x = parseFloat(a.price)", "double? fee", "Ü_price: f64", "(", "price =", "a.b.c(", "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		floatMoney(s)
	})
}
