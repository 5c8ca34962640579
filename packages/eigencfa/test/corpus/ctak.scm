;; tak with call/cc at every return (ctak): escape continuations only.
(define (ctak x y z)
  (call-with-current-continuation (lambda (k) (ctak-aux k x y z))))
(define (ctak-aux k x y z)
  (if (not (< y x))
      (k z)
      (call-with-current-continuation
       (lambda (k2)
         (ctak-aux k2
                   (call-with-current-continuation (lambda (k) (ctak-aux k (- x 1) y z)))
                   (call-with-current-continuation (lambda (k) (ctak-aux k (- y 1) z x)))
                   (call-with-current-continuation (lambda (k) (ctak-aux k (- z 1) x y))))))))
(display (ctak 9 6 3))
