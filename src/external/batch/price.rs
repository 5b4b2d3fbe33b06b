//! What model calls cost (`--llm-price MODEL=IN,OUT`, dollars per million tokens in
//! and out): the summary and `--stats` show it when prices are given. A batch's
//! tokens cost half.

use std::collections::BTreeMap;

/// Prices by model: (in, out) per million tokens.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Prices(pub BTreeMap<String, (f64, f64)>);

/// Parses one `--llm-price` value: `MODEL=IN,OUT`.
pub fn parse(s: &str) -> Result<(String, (f64, f64)), String> {
    let bad = || format!("`{s}`: a price is MODEL=IN,OUT (dollars per million tokens)");
    let (model, rest) = s.split_once('=').ok_or_else(bad)?;
    let (i, o) = rest.split_once(',').ok_or_else(bad)?;
    let num = |t: &str| -> Result<f64, String> {
        let x: f64 = t.trim().parse().map_err(|_| bad())?;
        if x.is_finite() && x >= 0.0 {
            Ok(x)
        } else {
            Err(bad())
        }
    };
    if model.trim().is_empty() {
        return Err(bad());
    }
    Ok((model.trim().to_string(), (num(i)?, num(o)?)))
}

impl Prices {
    /// The prices given on the command line (a later one for the same model wins).
    pub fn of(list: &[(String, (f64, f64))]) -> Prices {
        Prices(list.iter().cloned().collect())
    }

    /// Whether no price is known.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// What `tokens` (in, out) by model cost, at `factor` of the list price (0.5 for a
    /// batch); `None` if some model with tokens has no price.
    pub fn cost(&self, tokens: &BTreeMap<String, (u64, u64)>, factor: f64) -> Option<f64> {
        let mut total = 0.0;
        for (model, (i, o)) in tokens {
            if *i == 0 && *o == 0 {
                continue;
            }
            let (pi, po) = self.0.get(model)?;
            total += (*i as f64 * pi + *o as f64 * po) / 1e6;
        }
        Some(total * factor)
    }
}

/// Dollars, as the summary shows them: `$0.0123`.
pub fn dollars(x: f64) -> String {
    if x >= 100.0 {
        format!("${x:.2}")
    } else {
        format!("${x:.4}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prices_parse_and_batch_tokens_cost_half() {
        assert_eq!(
            parse("gpt-4o=2.5,10").unwrap(),
            ("gpt-4o".into(), (2.5, 10.0))
        );
        for bad in ["gpt", "=1,2", "m=1", "m=a,2", "m=-1,2", "m=1,inf"] {
            assert!(parse(bad).is_err(), "{bad}");
        }
        let p = Prices::of(&[parse("m=2,8").unwrap()]);
        let t: BTreeMap<String, (u64, u64)> = [("m".to_string(), (1_000_000, 500_000))].into();
        assert_eq!(p.cost(&t, 1.0), Some(6.0));
        assert_eq!(p.cost(&t, 0.5), Some(3.0));
        let unknown: BTreeMap<String, (u64, u64)> = [("n".to_string(), (1, 0))].into();
        assert_eq!(p.cost(&unknown, 1.0), None);
        assert_eq!(dollars(0.5), "$0.5000");
    }
}
