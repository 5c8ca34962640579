;; A regular-expression matcher by continuation-passing closures (Thompson-style combinators).
(define (lit c) (lambda (s i k) (and (< i (string-length s)) (char=? (string-ref s i) c) (k (+ i 1)))))
(define (cat a b) (lambda (s i k) (a s i (lambda (j) (b s j k)))))
(define (alt a b) (lambda (s i k) (or (a s i k) (b s i k))))
(define (star a) (letrec ((self (lambda (s i k) (or (a s i (lambda (j) (and (> j i) (self s j k)))) (k i))))) self))
(define (matches? re s) (re s 0 (lambda (j) (= j (string-length s)))))
(define re (cat (lit #\a) (cat (star (alt (lit #\b) (lit #\c))) (lit #\d))))
(display (map (lambda (s) (matches? re s)) '("ad" "abcbd" "abx" "a")))
