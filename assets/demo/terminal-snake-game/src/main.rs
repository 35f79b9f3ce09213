use std::collections::VecDeque;
use std::io::{stdout, Write};
use std::time::Duration;
use std::{env, fs, path::PathBuf};

use crossterm::event::{poll, read, Event, KeyCode};
use crossterm::style::{Color, Print, SetForegroundColor};
use crossterm::{cursor, execute, queue, terminal};
use rand::Rng;

const W: u16 = 40;
const H: u16 = 20;

#[derive(Clone, Copy, PartialEq)]
enum Dir { Up, Down, Left, Right }

struct Game {
    snake: VecDeque<(u16, u16)>,
    dir: Dir,
    apple: (u16, u16),
    score: u32,
}

impl Game {
    fn new() -> Self {
        let mut g = Game { snake: VecDeque::from(vec![(10, 10), (9, 10), (8, 10)]), dir: Dir::Right, apple: (0, 0), score: 0 };
        g.place_apple();
        g
    }

    fn place_apple(&mut self) {
        let mut rng = rand::thread_rng();
        loop {
            let p = (rng.gen_range(1..W - 1), rng.gen_range(1..H - 1));
            if !self.snake.contains(&p) { self.apple = p; return; }
        }
    }

    /// Advances one tick; false when the snake hits a wall or itself.
    fn step(&mut self) -> bool {
        let (x, y) = self.snake[0];
        let head = match self.dir {
            Dir::Up => (x, y.wrapping_sub(1)),
            Dir::Down => (x, y + 1),
            Dir::Left => (x.wrapping_sub(1), y),
            Dir::Right => (x + 1, y),
        };
        if head.0 == 0 || head.1 == 0 || head.0 >= W - 1 || head.1 >= H - 1 || self.snake.contains(&head) { return false; }
        self.snake.push_front(head);
        if head == self.apple { self.score += 1; self.place_apple(); } else { self.snake.pop_back(); }
        true
    }

    fn level(&self) -> u32 { 1 + self.score / 5 }
}

fn high_score_file() -> PathBuf {
    PathBuf::from(env::var("HOME").unwrap_or_else(|_| ".".into())).join(".snake-highscore")
}

fn main() -> std::io::Result<()> {
    let neon = env::args().any(|a| a == "neon");
    let (body, fruit) = if neon { (Color::Magenta, Color::Cyan) } else { (Color::Green, Color::Red) };
    let best: u32 = fs::read_to_string(high_score_file()).ok().and_then(|s| s.trim().parse().ok()).unwrap_or(0);
    let mut out = stdout();
    terminal::enable_raw_mode()?;
    execute!(out, terminal::EnterAlternateScreen, cursor::Hide)?;
    let mut game = Game::new();
    loop {
        let tick = Duration::from_millis(200u64.saturating_sub(20 * game.level() as u64).max(60));
        if poll(tick)? {
            if let Event::Key(k) = read()? {
                let d = match k.code {
                    KeyCode::Up | KeyCode::Char('w') => Dir::Up,
                    KeyCode::Down | KeyCode::Char('s') => Dir::Down,
                    KeyCode::Left | KeyCode::Char('a') => Dir::Left,
                    KeyCode::Right | KeyCode::Char('d') => Dir::Right,
                    KeyCode::Esc | KeyCode::Char('q') => break,
                    _ => game.dir,
                };
                let opposite = matches!((d, game.dir), (Dir::Up, Dir::Down) | (Dir::Down, Dir::Up) | (Dir::Left, Dir::Right) | (Dir::Right, Dir::Left));
                if !opposite { game.dir = d; }
            }
        }
        if !game.step() { break; }
        queue!(out, terminal::Clear(terminal::ClearType::All))?;
        for (x, y) in &game.snake { queue!(out, cursor::MoveTo(*x, *y), SetForegroundColor(body), Print("█"))?; }
        queue!(out, cursor::MoveTo(game.apple.0, game.apple.1), SetForegroundColor(fruit), Print("●"))?;
        queue!(out, cursor::MoveTo(0, H), SetForegroundColor(Color::White), Print(format!("score {}  level {}  best {}", game.score, game.level(), best)))?;
        out.flush()?;
    }
    execute!(out, cursor::Show, terminal::LeaveAlternateScreen)?;
    terminal::disable_raw_mode()?;
    if game.score > best { fs::write(high_score_file(), game.score.to_string())?; }
    println!("Game over: score {}", game.score);
    Ok(())
}
