;; Records holding methods: shapes with an area procedure in a field.
(define-record-type shape (make-shape name area-proc) shape? (name shape-name) (area-proc shape-area-proc set-shape-area-proc!))
(define (make-square s) (make-shape 'square (lambda () (* s s))))
(define (make-rect w h) (make-shape 'rect (lambda () (* w h))))
(define shapes (list (make-square 3) (make-rect 2 5)))
(define (area sh) ((shape-area-proc sh)))
(display (map area shapes))
(set-shape-area-proc! (car shapes) (lambda () 0))
(display (area (car shapes)))
