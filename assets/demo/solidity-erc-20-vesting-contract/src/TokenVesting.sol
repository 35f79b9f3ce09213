// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC20} from "openzeppelin-contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "openzeppelin-contracts/token/ERC20/utils/SafeERC20.sol";
import {Ownable} from "openzeppelin-contracts/access/Ownable.sol";

contract TokenVesting is Ownable {
    using SafeERC20 for IERC20;

    struct Schedule {
        uint128 total;
        uint128 released;
        uint64 start;
        uint64 cliff;
        uint64 duration;
        bool revocable;
        bool revoked;
    }

    IERC20 public immutable token;
    mapping(address => Schedule) public schedules;

    event Created(address indexed beneficiary, uint256 total);
    event Released(address indexed beneficiary, uint256 amount);
    event Revoked(address indexed beneficiary, uint256 refunded);

    constructor(IERC20 token_) Ownable(msg.sender) {
        token = token_;
    }

    function create(address who, uint128 total, uint64 start, uint64 cliffSeconds, uint64 duration, bool revocable)
        external
        onlyOwner
    {
        require(schedules[who].total == 0, "exists");
        require(duration > 0 && cliffSeconds <= duration, "bad schedule");
        token.safeTransferFrom(msg.sender, address(this), total);
        schedules[who] = Schedule(total, 0, start, start + cliffSeconds, duration, revocable, false);
        emit Created(who, total);
    }

    function vested(address who, uint64 at) public view returns (uint256) {
        Schedule memory s = schedules[who];
        if (at < s.cliff) return 0;
        if (s.revoked || at >= s.start + s.duration) return s.total;
        return (uint256(s.total) * (at - s.start)) / s.duration;
    }

    function release() external {
        Schedule storage s = schedules[msg.sender];
        uint256 amount = vested(msg.sender, uint64(block.timestamp)) - s.released;
        require(amount > 0, "nothing to release");
        s.released += uint128(amount);
        token.safeTransfer(msg.sender, amount);
        emit Released(msg.sender, amount);
    }

    function revoke(address who) external onlyOwner {
        Schedule storage s = schedules[who];
        require(s.revocable && !s.revoked, "not revocable");
        uint256 keep = vested(who, uint64(block.timestamp));
        uint256 refund = s.total - keep;
        s.total = uint128(keep);
        s.revoked = true;
        token.safeTransfer(owner(), refund);
        emit Revoked(who, refund);
    }
}
