//! The default colours of series and slices.

/// The default colours of series and slices, used when a series has none: Okabe and Ito's
/// palette ("Color Universal Design", 2002), which stays distinguishable with each kind of
/// colour-vision deficiency, ordered so the first colours contrast most with one another and
/// with a white background.
pub const PALETTE: [&str; 8] = [
    "#0072b2", "#e69f00", "#009e73", "#d55e00", "#cc79a7", "#56b4e9", "#f0e442", "#000000",
];

#[cfg(test)]
mod tests {
    //! Every pair of colours, and each colour against the white background, stays apart
    //! (CIE76 ΔE in CIELAB) as seen with deuteranopia, protanopia and tritanopia (Machado,
    //! Oliveira and Fernandes 2009, severity 1) and with typical vision. Tableau 10, the
    //! palette before, fails: its red and green are ΔE 0.9 apart with deuteranopia.

    use super::PALETTE;

    /// The simulations, on linear RGB.
    const VISIONS: [(&str, [[f64; 3]; 3]); 4] = [
        (
            "typical",
            [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
        ),
        (
            "deuteranopia",
            [
                [0.367_322, 0.860_646, -0.227_968],
                [0.280_085, 0.672_501, 0.047_413],
                [-0.011_820, 0.042_940, 0.968_881],
            ],
        ),
        (
            "protanopia",
            [
                [0.152_286, 1.052_583, -0.204_868],
                [0.114_503, 0.786_281, 0.099_216],
                [-0.003_882, -0.048_116, 1.051_998],
            ],
        ),
        (
            "tritanopia",
            [
                [1.255_528, -0.076_749, -0.178_779],
                [-0.078_411, 0.930_809, 0.147_602],
                [0.004_733, 0.691_367, 0.303_900],
            ],
        ),
    ];

    /// The least ΔE between two series' colours, and between a colour and the background.
    const APART: f64 = 15.0;
    const FROM_WHITE: f64 = 20.0;

    fn linear(hex: &str) -> [f64; 3] {
        let channel = |i: usize| {
            let c = f64::from(u8::from_str_radix(&hex[i..i + 2], 16).unwrap()) / 255.0;
            if c <= 0.040_45 {
                c / 12.92
            } else {
                ((c + 0.055) / 1.055).powf(2.4)
            }
        };
        [channel(1), channel(3), channel(5)]
    }

    /// CIELAB (D65) of `hex` as seen with `vision`.
    fn seen(hex: &str, vision: &[[f64; 3]; 3]) -> [f64; 3] {
        let rgb = linear(hex);
        let [r, g, b] =
            vision.map(|row| (row[0] * rgb[0] + row[1] * rgb[1] + row[2] * rgb[2]).clamp(0.0, 1.0));
        let x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.950_47;
        let y = 0.2126 * r + 0.7152 * g + 0.0722 * b;
        let z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.088_83;
        let f = |t: f64| {
            if t > 0.008_856 {
                t.cbrt()
            } else {
                7.787 * t + 16.0 / 116.0
            }
        };
        [
            116.0 * f(y) - 16.0,
            500.0 * (f(x) - f(y)),
            200.0 * (f(y) - f(z)),
        ]
    }

    fn delta_e(a: [f64; 3], b: [f64; 3]) -> f64 {
        a.iter()
            .zip(b)
            .map(|(p, q)| (p - q).powi(2))
            .sum::<f64>()
            .sqrt()
    }

    #[test]
    fn colours_stay_apart_with_each_colour_vision() {
        for (name, vision) in &VISIONS {
            for (i, a) in PALETTE.iter().enumerate() {
                let white = delta_e(seen(a, vision), seen("#ffffff", vision));
                assert!(
                    white >= FROM_WHITE,
                    "{name}: {a} is ΔE {white:.1} from white"
                );
                for b in &PALETTE[i + 1..] {
                    let apart = delta_e(seen(a, vision), seen(b, vision));
                    assert!(
                        apart >= APART,
                        "{name}: {a} and {b} are ΔE {apart:.1} apart"
                    );
                }
            }
        }
    }

    #[test]
    fn the_check_tells_red_from_green_apart_only_with_typical_vision() {
        let (red, green) = ("#e15759", "#59a14f");
        let typical = delta_e(seen(red, &VISIONS[0].1), seen(green, &VISIONS[0].1));
        let deuteranopia = delta_e(seen(red, &VISIONS[1].1), seen(green, &VISIONS[1].1));
        assert!(
            typical > APART && deuteranopia < APART,
            "{typical} {deuteranopia}"
        );
    }
}
