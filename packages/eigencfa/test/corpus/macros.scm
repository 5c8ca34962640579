;; syntax-rules macros of the kind benchmark programs define: swap!, while, my-or, a for loop, a
;; macro that defines procedures, and let-syntax; closures pass through all of them.
(define-syntax swap!
  (syntax-rules () ((_ a b) (let ((tmp a)) (set! a b) (set! b tmp)))))
(define-syntax while
  (syntax-rules () ((_ test body ...) (let loop () (when test body ... (loop))))))
(define-syntax my-or
  (syntax-rules () ((_) #f) ((_ e) e) ((_ e r ...) (let ((t e)) (if t t (my-or r ...))))))
(define-syntax for
  (syntax-rules (in) ((_ x in lst body ...) (for-each (lambda (x) body ...) lst))))
(define-syntax define-op
  (syntax-rules () ((_ name op) (define (name a b) (op a b)))))
(define-op add +)
(define-op pick (lambda (x y) x))
(define tmp (lambda (x) (* x 10)))
(define other (lambda (x) (+ x 1)))
(swap! tmp other)
(display (list (tmp 1) (other 1)))
(define i 0)
(define acc '())
(while (< i 3) (set! acc (cons (lambda (z) (+ z i)) acc)) (set! i (+ i 1)))
(display (map (lambda (f) (f 100)) acc))
(define t 5)
(display ((my-or #f (lambda (w) (* w t))) 2))
(for p in (list (lambda (q) (list 'q q)) tmp) (display (p 3)))
(display (list (add 1 2) (pick 'a 'b)))
(display (let-syntax ((twice (syntax-rules () ((_ f x) (f (f x))))))
           (twice (lambda (n) (* n 2)) 5)))
